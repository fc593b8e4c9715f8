package io.pigeon.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.testing.Api;
import io.pigeon.testing.Db;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.ValidatableResponse;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.SqlClient;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.hamcrest.Matchers;
import org.junit.jupiter.api.Test;

/**
 * The connections to registered pools: made on first use from the catalogue (also for a pool another replica
 * registered), one client however many first uses race, and dropped once the pool is deleted or moved.
 */
@QuarkusTest
class PoolClientsTest {

    @Inject
    Pool pool;

    @Inject
    PoolClients clients;

    @Inject
    PoolService pools;

    @Inject
    PoolUpgrades upgrades;

    private final String suffix = UUID.randomUUID().toString().substring(0, 8);

    private String databaseOf(SqlClient client) {
        return client.query("SELECT current_database()")
                .execute()
                .await()
                .indefinitely()
                .iterator()
                .next()
                .getString(0);
    }

    private static String databaseIn(String uri) {
        return uri.substring(uri.lastIndexOf('/') + 1);
    }

    @Test
    void aPoolIsReachedWhereTheCatalogueSaysUntilItMovesOrGoes() {
        Api.newProject(); // the shared database must be up
        String first = Db.newDatabase(pool);
        String second = Db.newDatabase(pool);
        String name = "clients-" + suffix;
        pools.register(name, new PoolSpec(first, 10L, null, null)).await().indefinitely();

        // Sixteen first uses at once share one client.
        List<Uni<Pool>> racing = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            racing.add(clients.of(name));
        }
        List<Pool> made = Uni.join().all(racing).andFailFast().await().indefinitely();
        made.forEach(client -> assertSame(made.get(0), client));
        assertEquals(databaseIn(first), databaseOf(made.get(0)));

        pools.update(name, new PoolSpec(second, null, null, null)).await().indefinitely();
        clients.refresh().await().indefinitely();
        assertEquals(databaseIn(second), databaseOf(clients.of(name).await().indefinitely()));

        pools.delete(name).await().indefinitely();
        clients.refresh().await().indefinitely();
        assertThrows(
                PoolClients.UnknownPool.class, () -> clients.of(name).await().indefinitely());
    }

    @Test
    void aPoolRegisteredElsewhereIsFoundWithoutARestart() {
        Api.newProject();
        String uri = Db.newDatabase(pool);
        String name = "elsewhere-" + suffix;
        // As another replica's registration leaves it: a catalogue row this replica has never seen.
        Db.run(pool, "INSERT INTO pools (name, uri, weight) VALUES ($1, $2, 5)", name, uri);
        try {
            assertEquals(databaseIn(uri), databaseOf(clients.of(name).await().indefinitely()));
        } finally {
            Db.run(pool, "DELETE FROM pools WHERE name = $1", name);
            clients.refresh().await().indefinitely();
        }
        assertThrows(
                PoolClients.UnknownPool.class,
                () -> clients.of("never-" + suffix).await().indefinitely());
    }

    @Test
    void anyAcceptedSpellingOfTheSchemeConnects() {
        Api.newProject();
        String uri = Db.newDatabase(pool);
        String name = "spelled-" + suffix;
        pools.register(name, new PoolSpec(uri.replaceFirst("^postgresql://", "PostgreS://"), 1L, null, null))
                .await()
                .indefinitely();
        try {
            assertEquals(databaseIn(uri), databaseOf(clients.of(name).await().indefinitely()));
        } finally {
            pools.delete(name).await().indefinitely();
        }
    }

    @Test
    void aPoolLeftAtAnOlderSchemaIsMigratedAtStartWhateverBecomesOfTheOthers() {
        String project = Api.newProject();
        String uri = Db.newDatabase(pool);
        String name = "behind-" + suffix;
        String unreadable = "unreadable-" + suffix;
        String unreachable = "unreachable-" + suffix;
        String configured = "configured-" + suffix;
        pools.register(name, new PoolSpec(uri, 10L, null, null)).await().indefinitely();
        try {
            Api.as(project)
                    .contentType(ContentType.JSON)
                    .body("{}")
                    .put("/v2/queues/behind")
                    .then()
                    .statusCode(201);
            assertEquals(
                    name,
                    Db.run(pool, "SELECT pool FROM placements WHERE project = $1 AND queue = 'behind'", project)
                            .iterator()
                            .next()
                            .getString("pool"));
            String id = Api.as(project)
                    .contentType(ContentType.JSON)
                    .body("{\"subscriber\": \"http://localhost:9/hook\", \"ttl\": 600}")
                    .post("/v2/queues/behind/subscriptions")
                    .then()
                    .statusCode(201)
                    .extract()
                    .jsonPath()
                    .getString("subscription_id");

            // As an upgrade finds it: the pool's database without its latest migrations (V16, which confirming
            // uses, and V17 to V29 after it).
            Pool behind = clients.of(name).await().indefinitely();
            Db.run(behind, "ALTER TABLE subscriptions DROP COLUMN confirmation_until");
            Db.run(behind, "ALTER TABLE subscriptions DROP COLUMN socket_lease_until");
            Db.run(behind, "DROP TABLE post_keys");
            Db.run(behind, "ALTER TABLE quota_breaches DROP CONSTRAINT quota_breaches_kind_check");
            Db.run(
                    behind,
                    "ALTER TABLE quota_breaches ADD CONSTRAINT quota_breaches_kind_check "
                            + "CHECK (kind IN ('messages', 'groups', 'items', 'bytes'))");
            Db.run(behind, "ALTER TABLE queues DROP COLUMN wake_until");
            Db.run(behind, "DROP TABLE redrive_tasks");
            Db.run(behind, "ALTER TABLE messages DROP COLUMN dead_letter_source");
            Db.run(behind, "DROP TABLE queue_samples, queue_counters, queue_sample_runs");
            Db.run(behind, "DROP TABLE queue_counter_history");
            Db.run(
                    behind,
                    "ALTER TABLE subscriptions DROP COLUMN last_delivered_at, DROP COLUMN failures,"
                            + " DROP COLUMN last_failed_at, DROP COLUMN last_error");
            Db.run(behind, "DROP TABLE console_ended_sessions");
            Db.run(behind, "DROP TABLE post_key_counts");
            Db.run(behind, "DROP INDEX messages_free_ready, messages_free_delayed");
            Db.run(behind, "CREATE INDEX messages_free ON messages (queue_id, id) WHERE claim_id IS NULL");
            Db.run(behind, "ALTER TABLE messages DROP COLUMN sqs_attributes, DROP COLUMN first_claimed_at");
            Db.run(behind, "DELETE FROM deployment_secrets WHERE name = 'receipt-handles'");
            Db.run(behind, "DROP TABLE sqs_accounts, access_keys");
            Db.run(behind, "ALTER TABLE queues DROP COLUMN metadata_changed_at");
            Db.run(behind, "DROP FUNCTION pigeon_fifo_free(bigint, integer, integer)");
            Db.run(behind, "DROP FUNCTION pigeon_fifo_free_each(bigint, integer[], integer)");
            Db.run(behind, "ALTER TABLE messages DROP COLUMN traceparent, DROP COLUMN tracestate");
            Db.run(behind, "ALTER TABLE dispatch_groups DROP COLUMN traceparent");
            Db.run(behind, "ALTER TABLE messages DROP COLUMN message_group");
            Db.run(behind, "DROP TABLE sqs_receive_attempts");
            // Every version from 16 on, so that a migration added later is behind too (Flyway will not apply a
            // version below one it has applied).
            Db.run(behind, "DELETE FROM flyway_schema_history WHERE version ~ '^[0-9]+$' AND version::int >= 16");
            String groupIds =
                    "SELECT pg_sequence_last_value(pg_get_serial_sequence('dispatch_groups', 'id')::regclass)";
            long groupIdsBefore = Db.count(behind, groupIds);
            confirmBehind(project, id).statusCode(500);
            // Rows that no pass may stop at: a uri that does not parse, a server that does not answer, and the
            // configured database (refused at registration; only Quarkus's Flyway migrates it).
            Db.run(
                    pool,
                    "INSERT INTO pools (name, uri, weight) VALUES ($1, 'not a uri', 0), "
                            + "($2, 'postgresql://postgres:postgres@localhost:1/nothing', 0), ($3, $4, 0)",
                    unreadable,
                    unreachable,
                    configured,
                    Db.configuredDatabase());

            Map<String, PoolUpgrades.Outcome> outcomes =
                    upgrades.upgradeRegistered().await().indefinitely();

            assertEquals(
                    1, Db.count(behind, "SELECT count(*) FROM flyway_schema_history WHERE version = '16' AND success"));
            confirmBehind(project, id).statusCode(204);
            Api.as(project)
                    .get("/v2/queues/behind/subscriptions/" + id)
                    .then()
                    .statusCode(200)
                    .body("confirmed", Matchers.equalTo(true));
            assertEquals(groupIdsBefore, Db.count(behind, groupIds), "the pool's group ids stay in their block");
            assertTrue(groupIdsBefore >= 1L << PoolSchemas.ID_BLOCK_BITS);
            assertEquals(
                    Map.of(
                            name,
                            PoolUpgrades.Outcome.MIGRATED,
                            unreadable,
                            PoolUpgrades.Outcome.INVALID,
                            unreachable,
                            PoolUpgrades.Outcome.UNREACHABLE,
                            configured,
                            PoolUpgrades.Outcome.CATALOGUE),
                    Map.of(
                            name,
                            outcomes.get(name),
                            unreadable,
                            outcomes.get(unreadable),
                            unreachable,
                            outcomes.get(unreachable),
                            configured,
                            outcomes.get(configured)));
        } finally {
            Db.run(pool, "DELETE FROM pools WHERE name IN ($1, $2, $3)", unreadable, unreachable, configured);
            Api.as(project).delete("/v2/queues/behind").then().statusCode(204);
            pools.delete(name).await().indefinitely();
        }
    }

    private static ValidatableResponse confirmBehind(String project, String id) {
        return Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"confirmed\": true}")
                .put("/v2/queues/behind/subscriptions/" + id + "/confirm")
                .then();
    }
}
