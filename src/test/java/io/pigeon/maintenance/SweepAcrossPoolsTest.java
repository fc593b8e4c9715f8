package io.pigeon.maintenance;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pigeon.pool.PoolClients;
import io.pigeon.pool.PoolService;
import io.pigeon.pool.PoolSpec;
import io.pigeon.testing.Api;
import io.pigeon.testing.Db;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.SqlClient;
import jakarta.inject.Inject;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The sweeper reclaims expired messages and ends expired claims on every registered pool, not only at home. */
@QuarkusTest
class SweepAcrossPoolsTest {

    @Inject
    Pool pool;

    @Inject
    Sweeper sweeper;

    @Inject
    PoolService pools;

    @Inject
    PoolClients clients;

    private static long count(SqlClient db, String sql) {
        return db.query(sql).execute().await().indefinitely().iterator().next().getLong(0);
    }

    @Test
    void expiredMessagesAndClaimsOfAPoolAreSwept() {
        String project = Api.newProject();
        String name = "swept-" + UUID.randomUUID().toString().substring(0, 8);
        pools.register(name, new PoolSpec(Db.newDatabase(pool), 1L, null, null))
                .await()
                .indefinitely();
        SqlClient server = clients.of(name).await().indefinitely();
        try {
            // On the pool's server, as a queue placed there leaves it: one expired message, one message held by a
            // claim that has ended, one live message.
            server.query("INSERT INTO queues (project, name) VALUES ('" + project + "', 'q')")
                    .execute()
                    .await()
                    .indefinitely();
            server.query(
                            """
                    INSERT INTO messages (queue_id, client_id, ttl, body, expires_at, claim_id, claim_expires_at)
                    SELECT id, gen_random_uuid(), 60, b.body, now() + b.lives * interval '1 second', b.claim,
                           CASE WHEN b.claim IS NOT NULL THEN now() - interval '1 second' END
                    FROM queues, (VALUES ('"expired"', -10, NULL::uuid),
                                         ('"claimed"', 600, '00000000-0000-0000-0000-0000000000aa'::uuid),
                                         ('"live"', 600, NULL::uuid)) AS b (body, lives, claim)""")
                    .execute()
                    .await()
                    .indefinitely();
            server.query(
                            """
                    INSERT INTO claims (id, queue_id, ttl, grace, expires_at, message_ids)
                    SELECT '00000000-0000-0000-0000-0000000000aa', q.id, 60, 60, now() - interval '1 second',
                           ARRAY(SELECT id FROM messages WHERE body = '"claimed"')
                    FROM queues q""")
                    .execute()
                    .await()
                    .indefinitely();

            // The scheduled sweep may get there first; either way, after this sweep it has happened.
            sweeper.sweep().await().indefinitely();
            assertEquals(0, count(server, "SELECT count(*) FROM messages WHERE body = '\"expired\"'"));
            assertEquals(0, count(server, "SELECT count(*) FROM claims"));
            assertEquals(2, count(server, "SELECT count(*) FROM messages WHERE claim_id IS NULL"));
        } finally {
            server.query("DELETE FROM queues").execute().await().indefinitely();
            pools.delete(name).await().indefinitely();
        }
    }
}
