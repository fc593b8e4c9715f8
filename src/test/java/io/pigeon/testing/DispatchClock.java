package io.pigeon.testing;

import static io.restassured.RestAssured.given;

import io.pigeon.dispatch.DispatchStore;
import io.pigeon.pool.PoolClients;
import io.vertx.mutiny.sqlclient.Tuple;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Brings a project's dispatch groups forward instead of waiting for their time: their fire time becomes the
 * database's now, and the dispatchers are woken on the channel they LISTEN on, as a push wakes them. A test thus
 * waits for the call, not for a retry delay or an ontime whose passing it does not check. Only pending groups that
 * no call holds (no live lease) are moved: a call in flight, a dead group and a delivered one are left as they are.
 * Every database is visited, since a project's groups are spread over the pools.
 */
public final class DispatchClock implements AutoCloseable {

    private static final String FIRE_NOW =
            """
            WITH moved AS (
                UPDATE dispatch_groups SET fire_at = now()
                WHERE project = ANY($1::text[]) AND state = 'pending' AND fire_at > now()
                  AND (lease_until IS NULL OR lease_until <= now())
                RETURNING id)
            SELECT pg_notify('%s', '') FROM (SELECT count(*) AS moved FROM moved) m WHERE m.moved > 0"""
                    .formatted(DispatchStore.CHANNEL);

    /** How often a running clock brings the project's groups forward. */
    private static final Duration TICK = Duration.ofMillis(50);

    private final ScheduledExecutorService ticks;

    private DispatchClock(ScheduledExecutorService ticks) {
        this.ticks = ticks;
    }

    /** Fires the projects' pending groups now (once), in one statement per database: due at one moment. */
    public static void fireNow(PoolClients pools, String... projects) {
        pools.onEvery(database -> database.client()
                        .preparedQuery(FIRE_NOW)
                        .execute(Tuple.tuple().addArrayOfString(projects)))
                .await()
                .indefinitely();
    }

    /**
     * Lets every group of the project that is due be called: fires them now, then pushes a group due now behind them
     * (to {@code receiver}) and waits for its call, and a moment for calls made alongside it to arrive. Twice: a call
     * that was in flight during the first round and scheduled a retry when it ended is fired and called in the second.
     * A check that something is not called follows this instead of waiting out a fire time or a retry delay.
     */
    public static void callEverythingDue(PoolClients pools, String project, Receiver receiver) {
        for (int round = 0; round < 2; round++) {
            fireNow(pools, project);
            String marker = "/marker/" + UUID.randomUUID();
            given().header("X-Project-Id", project)
                    .contentType("application/json")
                    .body("{}")
                    .post("/v3/queue/-marker/POST/" + receiver.service(marker))
                    .then()
                    .statusCode(201);
            Eventually.await(
                    "the marker's call",
                    Duration.ofSeconds(5),
                    () -> receiver.calls(marker).size() == 1);
            Eventually.pause(Duration.ofMillis(300));
        }
    }

    /**
     * Until closed, fires the project's pending groups as soon as they are scheduled: a failed call's retry follows
     * at once instead of after the retry delay. The attempts, their order and their outcomes are unchanged.
     */
    public static DispatchClock hurry(PoolClients pools, String project) {
        ScheduledExecutorService ticks = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "dispatch-clock-" + project);
            thread.setDaemon(true);
            return thread;
        });
        ticks.scheduleWithFixedDelay(
                () -> {
                    try {
                        fireNow(pools, project);
                    } catch (RuntimeException e) {
                        // A database that went away (another test's pool) must not stop the clock for the others.
                    }
                },
                0,
                TICK.toMillis(),
                TimeUnit.MILLISECONDS);
        return new DispatchClock(ticks);
    }

    @Override
    public void close() {
        ticks.shutdownNow();
        try {
            ticks.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
