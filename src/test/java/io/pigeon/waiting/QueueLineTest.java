package io.pigeon.waiting;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smallrye.mutiny.Uni;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongConsumer;
import org.junit.jupiter.api.Test;

/**
 * The rules of one queue's line, with tries that end when the test says and timers that fire when it says: waiters
 * are tried in the order they came, as many per wake as the wake says messages came free; a try that began before a
 * wake that found no idle waiter tries again at once; a wait ends at its bound, and a try running then is the answer.
 * That notices, marks and timers are real is tested against PostgreSQL by {@code LongPollTest} and
 * {@code WakeDuringTryTest}.
 */
class QueueLineTest {

    /** Timers that fire only when the test fires them. */
    private static final class HeldTimers implements QueueLine.Timers {
        private record Timer(long millis, LongConsumer fire) {}

        private final Map<Long, Timer> pending = new LinkedHashMap<>();
        private long next;

        @Override
        public long set(long millis, LongConsumer fire) {
            pending.put(next, new Timer(millis, fire));
            return next++;
        }

        @Override
        public void cancel(long timer) {
            pending.remove(timer);
        }

        /** Fires every pending timer set for {@code millis}; how many. */
        int fire(long millis) {
            List<Long> due = new ArrayList<>();
            pending.forEach((id, timer) -> {
                if (timer.millis() == millis) {
                    due.add(id);
                }
            });
            due.forEach(id -> pending.remove(id).fire().accept(id));
            return due.size();
        }

        boolean armed(long millis) {
            return pending.values().stream().anyMatch(timer -> timer.millis() == millis);
        }
    }

    /** One waiter's tries: each runs until the test ends it with how many messages it took. */
    private final class HeldTry implements QueueWaits.Attempt<Integer> {
        final String name;
        final List<CompletableFuture<Integer>> runs = new ArrayList<>();
        final List<Integer> givenBack = new ArrayList<>();

        HeldTry(String name) {
            this.name = name;
        }

        @Override
        public Uni<Integer> run() {
            tried.add(name);
            CompletableFuture<Integer> run = new CompletableFuture<>();
            runs.add(run);
            return Uni.createFrom().completionStage(run);
        }

        @Override
        public int taken(Integer outcome) {
            return outcome;
        }

        @Override
        public Uni<Void> giveBack(Integer outcome) {
            givenBack.add(outcome);
            return Uni.createFrom().voidItem();
        }

        /** Ends the latest try, which took {@code taken} messages. */
        void ends(int taken) {
            runs.get(runs.size() - 1).complete(taken);
        }
    }

    private static final long WAIT = 20_000;

    private final List<String> tried = new ArrayList<>();
    private final HeldTimers timers = new HeldTimers();
    private final AtomicInteger nextFreeReads = new AtomicInteger();
    /** What the next-free read answers: in how many milliseconds a message comes free by itself (null: never). */
    private volatile Long nextFreeIn;

    private final AtomicInteger left = new AtomicInteger();
    private final QueueLine line = new QueueLine(new QueueLine.Key(null, "project", "queue"), timers, key -> {
        nextFreeReads.incrementAndGet();
        return Uni.createFrom().item(Optional.ofNullable(nextFreeIn));
    });

    private boolean connected = true;

    /** A waiter that asks for {@code wanted} messages and waits {@value #WAIT} ms; its answer. */
    private CompletableFuture<Integer> waiter(HeldTry attempt, int wanted) {
        return Uni.createFrom()
                .<Integer>emitter(emitter -> {
                    Waiter<Integer> waiter =
                            new Waiter<>(wanted, attempt, () -> connected, -1, emitter, timers, left::incrementAndGet);
                    emitter.onTermination(waiter::abandon);
                    waiter.waitFor(WAIT);
                    line.join(waiter);
                })
                .subscribeAsCompletionStage();
    }

    @Test
    void nothingIsTriedBeforeTheLineIsEstablished() {
        QueueLine.Entered first = line.join(new Waiter<>(1, new HeldTry("a"), () -> true, -1, null, timers, () -> {}));
        assertTrue(first.establish(), "the first to enter establishes the line");
        assertFalse(
                line.join(new Waiter<>(1, new HeldTry("b"), () -> true, -1, null, timers, () -> {}))
                        .establish(),
                "one establishes it");
        assertEquals(-1, line.seen(), "no notice is counted before the line is established");

        line.wake(Integer.MAX_VALUE);
        assertEquals(List.of(), tried, "establishing: its end wakes everyone");
    }

    @Test
    void aWakeTriesTheWaitersInTheOrderTheyCameAsManyAsMessagesCameFree() {
        HeldTry a = new HeldTry("a");
        HeldTry b = new HeldTry("b");
        HeldTry c = new HeldTry("c");
        CompletableFuture<Integer> answerA = waiter(a, 1);
        waiter(b, 1);
        waiter(c, 1);
        line.established();

        line.noticed(1);
        assertEquals(List.of("a"), tried, "one message came free: one waiter is tried, the first");
        assertEquals(1, line.seen(), "the notice is counted");

        a.ends(0);
        assertEquals(List.of("a"), tried, "it found nothing: no one else is tried for that notice");
        assertEquals(1, nextFreeReads.get(), "the queue's next-free time is read again");
        assertFalse(answerA.isDone(), "it waits on");

        line.noticed(2);
        assertEquals(List.of("a", "a", "b"), tried, "the waiter tried and back goes first; two messages, two waiters");
    }

    @Test
    void aWaiterAskingForMoreTakesMoreOfTheWake() {
        HeldTry a = new HeldTry("a");
        HeldTry b = new HeldTry("b");
        waiter(a, 2);
        waiter(b, 1);
        line.established();

        line.noticed(2);
        assertEquals(List.of("a"), tried, "the first waiter asks for both messages");
    }

    @Test
    void aWaiterThatTookWhatItAskedForPassesTheWakeOn() {
        HeldTry a = new HeldTry("a");
        HeldTry b = new HeldTry("b");
        CompletableFuture<Integer> answerA = waiter(a, 1);
        waiter(b, 1);
        line.established();

        line.noticed(1);
        a.ends(1);
        assertEquals(1, answerA.join(), "it is answered with what it took");
        assertEquals(List.of("a", "b"), tried, "more may be free: the next is tried");
        assertEquals(1, left.get(), "the answered waiter left the line");
    }

    @Test
    void aTryThatBeganBeforeAWakeThatFoundNoIdleWaiterTriesAgainAtOnce() {
        HeldTry a = new HeldTry("a");
        waiter(a, 1);
        line.established();

        line.noticed(1);
        line.noticed(1); // while a's try runs: no idle waiter to offer it to
        a.ends(0);
        assertEquals(List.of("a", "a"), tried, "its snapshot may have come before the second post: it tries again");
        assertEquals(0, nextFreeReads.get(), "no waiting for a notice already sent");

        a.ends(0);
        assertEquals(List.of("a", "a"), tried, "a try that began after the wake and finds nothing waits");
        assertEquals(1, nextFreeReads.get());
    }

    @Test
    void aWakeThatFoundAnIdleWaiterDoesNotMakeARunningTryAgain() {
        HeldTry a = new HeldTry("a");
        HeldTry b = new HeldTry("b");
        waiter(a, 1);
        waiter(b, 1);
        line.established();

        line.noticed(1);
        line.noticed(1); // b is idle and takes this one
        assertEquals(List.of("a", "b"), tried);
        a.ends(0);
        assertEquals(List.of("a", "b"), tried, "the second notice was b's: a waits for the next");
    }

    @Test
    void aWaiterIsTriedWhenItsQueueNextFreesAMessageByItself() {
        HeldTry a = new HeldTry("a");
        waiter(a, 1);
        line.established();
        nextFreeIn = 3_000L;

        line.noticed(1);
        a.ends(0);
        long due = 3_000L + QueueLine.TIMER_MARGIN_MILLIS;
        assertTrue(timers.armed(due), "a timer is armed for when the message comes free");
        assertEquals(1, timers.fire(due));
        assertEquals(List.of("a", "a"), tried, "the timer wakes the line");
    }

    @Test
    void aWaitEndsAtItsBoundAndATryRunningThenIsTheAnswer() {
        HeldTry a = new HeldTry("a");
        HeldTry b = new HeldTry("b");
        CompletableFuture<Integer> answerA = waiter(a, 1);
        CompletableFuture<Integer> answerB = waiter(b, 1);
        line.established();

        timers.fire(WAIT); // both waits end: b idle, so far nothing tried
        assertEquals(-1, answerA.join(), "an idle waiter is answered as having found nothing when its wait ends");
        assertEquals(-1, answerB.join());
        assertEquals(2, left.get(), "both left the line and their places");

        HeldTry c = new HeldTry("c");
        CompletableFuture<Integer> answerC = waiter(c, 1);
        line.noticed(1);
        timers.fire(WAIT);
        assertFalse(answerC.isDone(), "a try runs: its outcome is the answer");
        c.ends(1);
        assertEquals(1, answerC.join());
        assertEquals(3, left.get());

        line.noticed(1);
        assertEquals(List.of("c"), tried, "no one is left to try");
    }

    @Test
    void aWaiterWhoseClientLeftIsNotTriedAndWhatItTookForOneIsGivenBack() {
        HeldTry a = new HeldTry("a");
        HeldTry b = new HeldTry("b");
        HeldTry c = new HeldTry("c");
        waiter(a, 1);
        waiter(b, 1);
        waiter(c, 1);
        line.established();

        line.noticed(1);
        connected = false; // every client leaves while a's try runs
        a.ends(1);
        assertEquals(List.of(1), a.givenBack, "what it took is free again at once");
        assertEquals(List.of("a"), tried, "the wake goes on, but b's client has left: it is not tried");
        assertEquals(2, left.get(), "a and b left the line");
        line.noticed(1);
        assertEquals(List.of("a"), tried, "c's client has left too: it is not tried");
        assertEquals(3, left.get());
    }
}
