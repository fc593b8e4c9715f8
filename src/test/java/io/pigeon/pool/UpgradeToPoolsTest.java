package io.pigeon.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.testing.Api;
import io.pigeon.testing.Db;
import io.pigeon.testing.Migrations;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import jakarta.inject.Inject;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;

/**
 * Upgrading a database that holds queues to the version with pools: the migration keeps every queue and message, and
 * the queues it held stay where they are (at home) when they are next placed.
 */
@QuarkusTest
class UpgradeToPoolsTest {

    @Inject
    Pool pool;

    @Inject
    Flyway application;

    @Inject
    Vertx vertx;

    @Test
    void queuesOfTheVersionBeforePoolsArePlacedAtHome() {
        Api.newProject();
        PoolUri uri = PoolUri.parse(Db.newDatabase(pool));
        Migrations.migrate(application, uri, "7");
        Pool older = Migrations.open(vertx, uri);
        try {
            Db.run(older, "INSERT INTO queues (project, name, metadata) VALUES ('p', 'orders', '{\"owner\": \"me\"}')");
            Db.run(
                    older,
                    """
                    INSERT INTO messages (queue_id, client_id, ttl, body, expires_at)
                    SELECT id, gen_random_uuid(), 600, '{"n": ' || n || '}', now() + interval '600 seconds'
                    FROM queues, generate_series(1, 3) AS n""");

            Migrations.migrate(application, uri, "latest");
            assertEquals(3, Db.count(older, "SELECT count(*) FROM messages"));
            assertEquals(1, Db.count(older, "SELECT count(*) FROM queues WHERE metadata->>'owner' = 'me'"));
            // Placed where it is, at home, so that replicas route it from memory.
            assertEquals(
                    1,
                    Db.count(
                            older,
                            "SELECT count(*) FROM placements WHERE project = 'p' AND queue = 'orders' AND pool IS NULL"));

            // A pool that takes new queues is registered; the queue made before stays home, a new one goes to the pool.
            Db.run(older, "INSERT INTO pools (name, uri, weight) VALUES ('p1', 'postgresql://h/db', 10)");
            Row kept = Db.run(older, Placements.PLACE, "p", "orders", null)
                    .iterator()
                    .next();
            assertTrue(kept.getBoolean("placed"));
            assertNull(kept.getString("pool"));
            Row placed =
                    Db.run(older, Placements.PLACE, "p", "new", null).iterator().next();
            assertEquals("p1", placed.getString("pool"));
            assertEquals(2, Db.count(older, "SELECT count(*) FROM placements"));
        } finally {
            older.closeAndAwait();
        }
    }
}
