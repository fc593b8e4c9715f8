package io.pigeon.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.testing.Eventually;
import io.pigeon.testing.TestConfig;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The coalescer's own rules, with statements that finish when the test says: who runs alone, who waits, what goes
 * together, within which bounds, and what each caller gets when a shared statement fails. The statements' SQL is
 * tested against PostgreSQL in {@code SharedStatementsTest} and under real parallel clients in
 * {@code CoalescedQueueTest}.
 */
class CoalescerTest {

    private static final Duration WAIT = Duration.ofSeconds(5);

    /** Statements started, each a list of requests; a statement answers each request doubled once released. */
    private final List<List<Integer>> statements = new CopyOnWriteArrayList<>();

    private final List<CompletableFuture<Void>> releases = new CopyOnWriteArrayList<>();
    private final List<Integer> sizes = Collections.synchronizedList(new ArrayList<>());

    private Coalescer<String, Integer, Integer> coalescer(int maxRows, int maxBytes) {
        return coalescer(maxRows, maxBytes, 1);
    }

    private Coalescer<String, Integer, Integer> coalescer(int maxRows, int maxBytes, int maxInFlight) {
        return coalescer(bounds(maxRows, maxBytes, maxInFlight, true));
    }

    private Coalescer<String, Integer, Integer> coalescer(CoalescingSettings bounds) {
        return new Coalescer<>(
                (key, requests) -> {
                    statements.add(List.copyOf(requests));
                    CompletableFuture<Void> release = new CompletableFuture<>();
                    releases.add(release);
                    return Uni.createFrom().completionStage(release).map(ignored -> {
                        if (requests.stream().anyMatch(request -> request < 0)) {
                            throw new IllegalArgumentException("negative: " + requests);
                        }
                        return requests.stream().map(request -> request * 2).toList();
                    });
                },
                request -> Math.abs(request),
                request -> 1,
                bounds,
                StatementObserver.counting(sizes::add));
    }

    /**
     * The bounds as a configuration gives them (a hand-made implementation of the interface is not allowed: its
     * methods carry the settings' constraints, which Quarkus reads as validation bindings).
     */
    private static CoalescingSettings bounds(int maxRows, int maxBytes, int maxInFlight, boolean enabled) {
        return bounds(maxRows, maxBytes, maxInFlight, enabled, "0s");
    }

    private static CoalescingSettings bounds(
            int maxRows, int maxBytes, int maxInFlight, boolean enabled, String window) {
        return TestConfig.settings(
                CoalescingSettings.class,
                Map.of(
                        "pigeon.coalescing.max-rows", Integer.toString(maxRows),
                        "pigeon.coalescing.max-bytes", Integer.toString(maxBytes),
                        "pigeon.coalescing.max-in-flight", Integer.toString(maxInFlight),
                        "pigeon.coalescing.enabled", Boolean.toString(enabled),
                        "pigeon.coalescing.window", window));
    }

    @Test
    void aLoneRequestRunsAtOnceAndThoseArrivingMeanwhileGoTogetherInTheNextStatement() {
        Coalescer<String, Integer, Integer> coalescer = coalescer(100, 100);
        CompletableFuture<Integer> first = coalescer.submit("q", 1).subscribeAsCompletionStage();
        assertEquals(List.of(List.of(1)), statements, "the first request did not wait for company");
        CompletableFuture<Integer> second = coalescer.submit("q", 2).subscribeAsCompletionStage();
        CompletableFuture<Integer> third = coalescer.submit("q", 3).subscribeAsCompletionStage();
        CompletableFuture<Integer> otherKey = coalescer.submit("other", 4).subscribeAsCompletionStage();
        assertEquals(List.of(List.of(1), List.of(4)), statements, "another key runs at once; the same key waits");

        releases.get(0).complete(null);
        assertEquals(2, first.join());
        assertEquals(List.of(List.of(1), List.of(4), List.of(2, 3)), statements, "the waiting went together");
        releases.get(2).complete(null);
        releases.get(1).complete(null);
        assertEquals(4, second.join());
        assertEquals(6, third.join());
        assertEquals(8, otherKey.join());
        assertEquals(List.of(1, 1, 2), sizes);
        assertEquals(0, coalescer.busyKeys(), "idle keys are forgotten");
    }

    @Test
    void withTwoInFlightTheSecondRequestRunsAtOnceAndTheRestWaitForEitherToFinish() {
        Coalescer<String, Integer, Integer> coalescer = coalescer(100, 100, 2);
        CompletableFuture<Integer> first = coalescer.submit("q", 1).subscribeAsCompletionStage();
        CompletableFuture<Integer> second = coalescer.submit("q", 2).subscribeAsCompletionStage();
        CompletableFuture<Integer> third = coalescer.submit("q", 3).subscribeAsCompletionStage();
        CompletableFuture<Integer> fourth = coalescer.submit("q", 4).subscribeAsCompletionStage();
        assertEquals(List.of(List.of(1), List.of(2)), statements, "two alone at once, the others wait");

        releases.get(1).complete(null);
        assertEquals(4, second.join());
        assertEquals(List.of(List.of(1), List.of(2), List.of(3, 4)), statements, "the waiting went together");
        releases.get(0).complete(null);
        assertEquals(2, first.join());
        assertEquals(1, coalescer.busyKeys(), "one statement still in flight");
        releases.get(2).complete(null);
        assertEquals(6, third.join());
        assertEquals(8, fourth.join());
        assertEquals(0, coalescer.busyKeys());
        CompletableFuture<Integer> later = coalescer.submit("q", 5).subscribeAsCompletionStage();
        assertEquals(List.of(5), statements.get(3), "an idle key runs at once again");
        releases.get(3).complete(null);
        assertEquals(10, later.join());
    }

    @Test
    void aStatementCarriesAtMostItsBoundsAndAtLeastOneRequest() {
        Coalescer<String, Integer, Integer> coalescer = coalescer(10, 2);
        coalescer.submit("q", 1).subscribeAsCompletionStage();
        List<CompletableFuture<Integer>> waiting = new ArrayList<>();
        for (int rows : new int[] {4, 5, 3, 20, 1, 1, 1}) {
            waiting.add(coalescer.submit("q", rows).subscribeAsCompletionStage());
        }
        for (int i = 0; i < 5; i++) {
            releases.get(i).complete(null);
        }
        // 10 rows at most: 4+5, then 3 (3+20 is over), then 20 alone (over the bound, but a statement takes at least
        // one), then 1+1 (two requests of one byte each: the byte bound), then 1.
        assertEquals(
                List.of(List.of(1), List.of(4, 5), List.of(3), List.of(20), List.of(1, 1), List.of(1)), statements);
        releases.get(5).complete(null);
        assertEquals(
                List.of(8, 10, 6, 40, 2, 2, 2),
                waiting.stream().map(CompletableFuture::join).toList());
    }

    @Test
    void aSharedStatementThatFailsIsRunAgainRequestByRequestSoOnlyTheFailingCallerFails() {
        Coalescer<String, Integer, Integer> coalescer = coalescer(100, 100);
        coalescer.submit("q", 1).subscribeAsCompletionStage();
        CompletableFuture<Integer> good = coalescer.submit("q", 2).subscribeAsCompletionStage();
        CompletableFuture<Integer> bad = coalescer.submit("q", -3).subscribeAsCompletionStage();
        CompletableFuture<Integer> alsoGood = coalescer.submit("q", 4).subscribeAsCompletionStage();
        releases.get(0).complete(null);
        releases.get(1).complete(null); // the shared one, [2, -3, 4]: fails whole
        assertEquals(List.of(List.of(1), List.of(2, -3, 4), List.of(2), List.of(-3), List.of(4)), statements);
        releases.forEach(release -> release.complete(null));
        assertEquals(4, good.join());
        assertEquals(8, alsoGood.join());
        Throwable failure = bad.handle((answer, error) -> error).join();
        assertInstanceOf(IllegalArgumentException.class, failure.getCause() == null ? failure : failure.getCause());
        assertEquals(0, coalescer.busyKeys());
    }

    @Test
    void offEveryRequestRunsAloneAtOnce() {
        Coalescer<String, Integer, Integer> coalescer = new Coalescer<>(
                (key, requests) -> {
                    statements.add(List.copyOf(requests));
                    return Uni.createFrom()
                            .item(requests.stream().map(request -> request * 2).toList())
                            .onItem()
                            .delayIt()
                            .by(Duration.ofMillis(50));
                },
                request -> 1,
                request -> 1,
                bounds(100, 100, 1, false),
                StatementObserver.counting(sizes::add));
        List<CompletableFuture<Integer>> answers = new ArrayList<>();
        for (int i = 1; i <= 3; i++) {
            answers.add(coalescer.submit("q", i).subscribeAsCompletionStage());
        }
        assertEquals(
                List.of(2, 4, 6),
                answers.stream()
                        .map(answer -> answer.orTimeout(WAIT.toSeconds(), TimeUnit.SECONDS)
                                .join())
                        .toList());
        assertEquals(List.of(List.of(1), List.of(2), List.of(3)), statements);
        assertTrue(sizes.stream().allMatch(size -> size == 1));
    }

    @Test
    void withAWindowARequestAfterASharedStatementWaitsForCompanyAndOneAfterALoneOneDoesNot() throws Exception {
        Vertx vertx = Vertx.vertx();
        try {
            Context loop = vertx.getOrCreateContext();
            Coalescer<String, Integer, Integer> coalescer = coalescer(bounds(100, 100, 1, true, "0.01s"));
            // 1 alone at once (nothing was shared yet), 2 and 3 meanwhile: together next.
            List<CompletableFuture<Integer>> first = submitOn(loop, coalescer, 1, 2, 3);
            releaseUntilAnswered(first);
            assertEquals(List.of(List.of(1), List.of(2, 3)), statements);

            // The last statement was shared: 4 finds the key idle but waits the window, and 5 (submitted in the same
            // turn of the event loop, so before any timer can fire) goes with it.
            releaseUntilAnswered(submitOn(loop, coalescer, 4, 5));
            assertEquals(List.of(4, 5), statements.get(2), "the request waited for company");

            // 6 comes alone: it waits the window (the last statement was shared) and runs alone, so 7, after it, runs
            // at once and 8 waits for 7's statement as without a window.
            releaseUntilAnswered(submitOn(loop, coalescer, 6));
            releaseUntilAnswered(submitOn(loop, coalescer, 7, 8));
            assertEquals(List.of(List.of(6), List.of(7), List.of(8)), statements.subList(3, 6));
            assertEquals(List.of(1, 2, 2, 1, 1, 1), sizes);
            assertEquals(0, coalescer.busyKeys(), "idle keys are forgotten");
        } finally {
            vertx.close().toCompletionStage().toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
        }
    }

    /** Submits {@code requests} on {@code loop}'s event loop, all in one task, as a request handler would. */
    private static List<CompletableFuture<Integer>> submitOn(
            Context loop, Coalescer<String, Integer, Integer> coalescer, Integer... requests) throws Exception {
        CompletableFuture<List<CompletableFuture<Integer>>> submitted = new CompletableFuture<>();
        loop.runOnContext(ignored -> {
            List<CompletableFuture<Integer>> answers = new ArrayList<>();
            for (Integer request : requests) {
                answers.add(coalescer.submit("q", request).subscribeAsCompletionStage());
            }
            submitted.complete(answers);
        });
        return submitted.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    }

    /** Releases every statement started, as they start, until each of {@code answers} is in. */
    private void releaseUntilAnswered(List<CompletableFuture<Integer>> answers) {
        Eventually.await("the answers to " + answers.size() + " requests", WAIT, () -> {
            releases.forEach(release -> release.complete(null));
            return answers.stream().allMatch(CompletableFuture::isDone);
        });
        answers.forEach(CompletableFuture::join);
    }
}
