package io.pigeon.waiting;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.pool.QueueDatabases;
import io.pigeon.queue.PlacedQueue;
import io.pigeon.queue.QueueName;
import io.pigeon.testing.Api;
import io.pigeon.testing.Eventually;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.smallrye.mutiny.Uni;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A notice that comes while a waiter's try runs is not lost: the try may have read the queue before the messages the
 * notice announces were committed (its snapshot came first), and finds nothing; the waiter then tries again at once.
 * Before, it went back to waiting for a notice already sent, and a message free to claim waited for the next post or
 * the end of the wait (seen as a rare failure of a redrive test under load).
 *
 * <p>The queue, its mark, the LISTEN connection and the posts' notices are real; the try is the test's, so that it can
 * be held open across a post and made to find nothing, as a try whose snapshot came first does.
 */
@QuarkusTest
class WakeDuringTryTest {

    @Inject
    QueueWaits waits;

    @Inject
    QueueDatabases databases;

    private final String project = Api.newProject();

    /** Tries that answer "nothing" until told otherwise; the one numbered {@code held} waits for {@code release}. */
    private static final class HeldTry implements QueueWaits.Attempt<Integer> {
        final AtomicInteger runs = new AtomicInteger();
        final AtomicReference<CompletableFuture<Integer>> held = new AtomicReference<>();
        final CompletableFuture<Void> heldStarted = new CompletableFuture<>();
        volatile boolean holdNext;
        volatile int takeFrom = Integer.MAX_VALUE;

        @Override
        public Uni<Integer> run() {
            int run = runs.incrementAndGet();
            if (run >= takeFrom) {
                return Uni.createFrom().item(1);
            }
            if (holdNext) {
                holdNext = false;
                CompletableFuture<Integer> answer = new CompletableFuture<>();
                held.set(answer);
                heldStarted.complete(null);
                return Uni.createFrom().completionStage(answer);
            }
            return Uni.createFrom().item(0);
        }

        @Override
        public int taken(Integer outcome) {
            return outcome;
        }

        @Override
        public Uni<Void> giveBack(Integer outcome) {
            return Uni.createFrom().voidItem();
        }
    }

    private void post(String queue, String body) {
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"messages\": [{\"ttl\": 300, \"body\": \"" + body + "\"}]}")
                .post("/v2/queues/" + queue + "/messages")
                .then()
                .statusCode(201);
    }

    @Test
    void aNoticeDuringATryThatFindsNothingMakesTheWaiterTryAgain() throws Exception {
        Api.as(project).put("/v2/queues/held").then().statusCode(201);
        PlacedQueue placed = PlacedQueue.of(databases, project, new QueueName("held"))
                .await()
                .atMost(Duration.ofSeconds(10));
        HeldTry attempt = new HeldTry();
        CompletableFuture<Integer> answer =
                waits.await(placed, null, -1, 30, 1, attempt, () -> true, 0).subscribeAsCompletionStage();

        // The mark made, the waiter tries at once and once more a moment later (for posts that missed the mark); both
        // find nothing, and it waits.
        Eventually.await("the tries after the mark", Duration.ofSeconds(10), () -> attempt.runs.get() >= 2);
        Eventually.pause(Duration.ofMillis(300));
        int before = attempt.runs.get();

        // A post wakes it; its try is held open while a second post is committed and noticed.
        attempt.holdNext = true;
        post("held", "first");
        attempt.heldStarted.get(10, TimeUnit.SECONDS);
        post("held", "second");
        Eventually.pause(Duration.ofMillis(300)); // the second notice arrives while the try is held

        // The held try finds nothing (its snapshot came before the posts); the next try takes a message.
        attempt.takeFrom = attempt.runs.get() + 1;
        long releasedAt = System.nanoTime();
        attempt.held.get().complete(0);
        int taken = answer.get(20, TimeUnit.SECONDS);
        long millis = (System.nanoTime() - releasedAt) / 1_000_000;

        assertEquals(1, taken, "the waiter took a message");
        assertTrue(millis < 5_000, "it tried again " + millis + " ms after the held try, not at the end of its wait");
        assertEquals(before + 2, attempt.runs.get(), "the held try and one more");
    }
}
