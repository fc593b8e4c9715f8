package io.pigeon.maintenance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.testing.Api;
import io.pigeon.testing.Db;
import io.pigeon.testing.Eventually;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.mutiny.sqlclient.Transaction;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A sweep asked for while another runs in the same process (the scheduled one, or a second caller) starts when
 * that one ends, even when the caller of the one before gave up waiting. Side by side, the later sweep would skip
 * the rows the other holds ({@code SKIP LOCKED}) and could end before they are swept, so a caller could not rely
 * on "after this sweep, what had expired is gone".
 */
@QuarkusTest
class SweepsOneAtATimeTest {

    private static final String OURS =
            """
            SELECT count(*) FROM messages m JOIN queues q ON q.id = m.queue_id
            WHERE q.project = $1 AND q.name = 'expiring'""";
    private static final String SWEEP_HELD_BY_THE_LOCK =
            """
            SELECT count(*) FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%DELETE FROM subscriptions%'""";

    @Inject
    Pool pool;

    @Inject
    Sweeper sweeper;

    @Test
    void aSweepAskedForDuringAnotherStartsWhenItEnds() throws Exception {
        String project = Api.newProject();
        Db.run(pool, "INSERT INTO queues (project, name) VALUES ($1, 'expiring')", project);

        // A sweep (this test's first, or the scheduled one with the first behind it) is held at its delete of
        // expired subscriptions by a lock on the table.
        SqlConnection holder = pool.getConnection().await().indefinitely();
        Transaction held = holder.begin().await().indefinitely();
        CompletableFuture<Sweeper.Sweep> first;
        CompletableFuture<Sweeper.Sweep> second;
        try {
            holder.query("LOCK TABLE subscriptions IN SHARE MODE")
                    .execute()
                    .await()
                    .indefinitely();
            first = sweeper.sweep().subscribeAsCompletionStage();
            Eventually.await(
                    "a sweep held by the lock",
                    Duration.ofSeconds(10),
                    () -> Db.count(pool, SWEEP_HELD_BY_THE_LOCK) > 0);
            // The first sweep's caller gives up waiting: its sweep still runs to its end before the next one.
            first.cancel(false);

            // Expired while that sweep is held: only a sweep that starts after it may take these.
            Db.run(
                    pool,
                    """
                    INSERT INTO messages (queue_id, client_id, ttl, body, expires_at)
                    SELECT q.id, gen_random_uuid(), 60, '"gone"', now() - interval '1 second'
                    FROM queues q, generate_series(1, 10) WHERE q.project = $1 AND q.name = 'expiring'""",
                    project);
            second = sweeper.sweep().subscribeAsCompletionStage();
            Eventually.pause(Duration.ofMillis(700));
            assertEquals(10, Db.count(pool, OURS, project), "the second sweep ran beside the first");
            assertFalse(second.isDone(), "the second sweep ended while the first ran");
        } finally {
            held.rollback().await().indefinitely();
            holder.close().await().indefinitely();
        }

        second.get(30, TimeUnit.SECONDS);
        assertEquals(0, Db.count(pool, OURS, project), "the second sweep ended before its messages were swept");
        assertTrue(first.isCancelled());
    }
}
