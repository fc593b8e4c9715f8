package io.pigeon.queuemetrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.storage.OneReplicaAtATime;
import io.pigeon.testing.Api;
import io.pigeon.testing.Messages;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.inject.Inject;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The sample statement on a real database: one replica at a time, once per period, bounded per queue, and forgetting
 * deleted queues. Each check runs in a transaction of its own, which holds the sample's lock from its sample to its
 * read, so that this application's own sampler (every second in tests) cannot run between the two.
 */
@QuarkusTest
class QueueSampleTest {

    @Inject
    Pool pool;

    @Inject
    QueueMetricsStore store;

    private final String project = Api.newProject();

    private void post(String queue, int count) {
        Messages.postV2(project, queue, count, 300, 0);
    }

    private static Uni<Optional<Row>> sampleRow(SqlConnection connection, String project, String queue) {
        return connection
                .preparedQuery(
                        """
                        SELECT s.* FROM queue_samples s JOIN queues q ON q.id = s.queue_id
                        WHERE q.project = $1 AND q.name = $2""")
                .execute(Tuple.of(project, queue))
                .map(rows -> rows.size() == 0
                        ? Optional.empty()
                        : Optional.of(rows.iterator().next()));
    }

    @Test
    void aSampleRunsOnlyWhereNoOtherReplicaHoldsTheLockAndOnlyOncePerPeriod() {
        post("locked", 3);
        // Another replica mid-sample: the lock is held by another session's transaction.
        pool.withTransaction(other -> other.preparedQuery("SELECT pg_advisory_xact_lock($1)")
                        .execute(Tuple.of(OneReplicaAtATime.QUEUE_SAMPLE.key()))
                        .chain(() -> store.sample(pool, 0, 10_000))
                        .invoke(sampled -> {
                            assertFalse(sampled.held(), "the lock is another replica's");
                            assertFalse(sampled.sampled());
                            assertEquals(0, sampled.queues());
                        }))
                .await()
                .indefinitely();
        pool.withTransaction(connection -> store.sample(connection, 0, 10_000)
                        .invoke(sampled -> {
                            assertTrue(sampled.held());
                            assertTrue(sampled.sampled());
                            assertTrue(sampled.queues() >= 1);
                        })
                        .chain(() -> sampleRow(connection, project, "locked"))
                        .invoke(row -> assertEquals(3, row.orElseThrow().getLong("ready")))
                        // Sampled a moment ago: not due again within a minute.
                        .chain(() -> store.sample(connection, 60_000, 10_000))
                        .invoke(again -> {
                            assertTrue(again.held());
                            assertFalse(again.sampled(), "sampled twice within its period");
                        }))
                .await()
                .indefinitely();
    }

    @Test
    void aQueueDeeperThanTheExactCountIsEstimatedFromItsOldestMessages() {
        post("deep", 25);
        post("shallow", 4);
        pool.withTransaction(connection -> store.sample(connection, 0, 10)
                        .chain(() -> sampleRow(connection, project, "deep"))
                        .invoke(row -> {
                            Row deep = row.orElseThrow();
                            assertTrue(deep.getBoolean("estimated"));
                            long ready = deep.getLong("ready");
                            assertTrue(ready >= 11 && ready <= 40, "25 messages estimated as " + ready);
                        })
                        .chain(() -> sampleRow(connection, project, "shallow"))
                        .invoke(row -> {
                            Row shallow = row.orElseThrow();
                            assertFalse(shallow.getBoolean("estimated"));
                            assertEquals(4, shallow.getLong("ready"));
                        }))
                .await()
                .indefinitely();
    }

    @Test
    void aDeletedQueueLeavesNoSampleAndNoTotals() {
        post("gone", 2);
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{}")
                .post("/v2/queues/gone/claims?limit=1")
                .then()
                .statusCode(201);
        long id = pool.preparedQuery("SELECT id FROM queues WHERE project = $1 AND name = 'gone'")
                .execute(Tuple.of(project))
                .await()
                .indefinitely()
                .iterator()
                .next()
                .getLong("id");
        pool.withTransaction(connection -> store.sample(connection, 0, 10_000))
                .await()
                .indefinitely();
        Api.as(project).delete("/v2/queues/gone").then().statusCode(204);
        // Totals flushed for a queue whose delete raced the flush are forgotten too.
        pool.preparedQuery("INSERT INTO queue_counters (queue_id, posted) VALUES ($1, 2) ON CONFLICT DO NOTHING")
                .execute(Tuple.of(id))
                .await()
                .indefinitely();
        pool.withTransaction(connection -> store.sample(connection, 0, 10_000)
                        .chain(() -> count(connection, "SELECT count(*) FROM queue_samples WHERE queue_id = $1", id))
                        .invoke(samples -> assertEquals(0, samples))
                        .chain(() -> count(connection, "SELECT count(*) FROM queue_counters WHERE queue_id = $1", id))
                        .invoke(totals -> assertEquals(0, totals)))
                .await()
                .indefinitely();
    }

    private static Uni<Long> count(SqlConnection connection, String sql, long id) {
        return connection.preparedQuery(sql).execute(Tuple.of(id)).map(rows -> rows.iterator()
                .next()
                .getLong(0));
    }
}
