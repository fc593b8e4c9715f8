package io.pigeon.message;

import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pigeon.testing.Api;
import io.pigeon.testing.Db;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/**
 * Stats read a bounded number of rows: exact up to {@link MessageStore#EXACT_STATS_LIMIT} live messages, beyond that
 * an estimate from the density of the oldest ones, and the claimed count exact below the same bound.
 */
@QuarkusTest
class StatsAtDepthTest {

    @Inject
    Pool pool;

    private final String project = Api.newProject();

    /** {@code count} messages in the queue, straight into its table (posting 25,000 over HTTP would take a while). */
    private void fill(String queue, int count) {
        Db.run(
                pool,
                """
                INSERT INTO messages (queue_id, client_id, ttl, body, expires_at)
                SELECT q.id, gen_random_uuid(), 3600, '{"n": ' || n || '}', now() + interval '1 hour'
                FROM queues q, generate_series(1, $3) AS n WHERE q.project = $1 AND q.name = $2""",
                project,
                queue,
                count);
    }

    @Test
    void aDeepQueueIsCountedFromItsHeadAndItsClaimedMessagesExactly() {
        Api.as(project)
                .contentType("application/json")
                .body("{}")
                .put("/v2/queues/deep")
                .then()
                .statusCode(201);
        fill("deep", 25_000);
        Api.as(project)
                .contentType("application/json")
                .body("{\"ttl\": 300, \"grace\": 60}")
                .queryParam("limit", 15)
                .post("/v2/queues/deep/claims")
                .then()
                .statusCode(201);
        Api.as(project)
                .get("/v2/queues/deep/stats")
                .then()
                .statusCode(200)
                .body("messages.total", equalTo(25_000))
                .body("messages.claimed", equalTo(15))
                .body("messages.free", equalTo(24_985));

        // Every second message deleted: half the density, half the estimate, still what the queue holds.
        Db.run(
                pool,
                """
                DELETE FROM messages m USING queues q
                WHERE m.queue_id = q.id AND q.project = $1 AND q.name = 'deep' AND m.id % 2 = 0 AND m.claim_id IS NULL""",
                project);
        long held = Db.count(
                pool,
                """
                SELECT count(*) FROM messages m JOIN queues q ON q.id = m.queue_id WHERE q.project = $1 AND q.name = 'deep'""",
                project);
        int shown = Api.as(project)
                .get("/v2/queues/deep/stats")
                .then()
                .statusCode(200)
                .body("messages.claimed", equalTo(15))
                .extract()
                .path("messages.total");
        assertEquals(held, shown, 0.02 * held, "the estimate of " + held);
    }

    @Test
    void aQueueWithinTheBoundIsCountedExactly() {
        Api.as(project)
                .contentType("application/json")
                .body("{}")
                .put("/v2/queues/shallow")
                .then()
                .statusCode(201);
        fill("shallow", MessageStore.EXACT_STATS_LIMIT);
        Db.run(
                pool,
                """
                DELETE FROM messages m USING queues q
                WHERE m.queue_id = q.id AND q.project = $1 AND q.name = 'shallow' AND m.id % 3 = 0""",
                project);
        long held = Db.count(
                pool,
                """
                SELECT count(*) FROM messages m JOIN queues q ON q.id = m.queue_id WHERE q.project = $1 AND q.name = 'shallow'""",
                project);
        Api.as(project)
                .get("/v2/queues/shallow/stats")
                .then()
                .statusCode(200)
                .body("messages.total", equalTo((int) held))
                .body("messages.free", equalTo((int) held));
    }

    @Test
    void theEstimateFollowsTheDensityOfTheHead() {
        assertEquals(20_000, MessageStore.estimatedTotal(10_001, 1, 10_001, 20_000));
        assertEquals(20_000, MessageStore.estimatedTotal(10_000, 1, 20_000, 40_000));
        assertEquals(10_001, MessageStore.estimatedTotal(10_001, 1, 10_001, 5_000), "never below the head's count");
    }
}
