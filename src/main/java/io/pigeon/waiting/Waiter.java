package io.pigeon.waiting;

import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.subscription.UniEmitter;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.jboss.logging.Logger;

/**
 * One waiting request in its queue's line: tried when woken, answered once (with what a try took, as empty when its
 * wait ends, or with a failure), and counted until it leaves, however it leaves.
 *
 * <p>A try that took as many messages as it asked for passes the wake on (more may be free); one that found nothing
 * goes back to the head of the line and the queue's next-free time is read again, unless a wake came while it was
 * tried that found no idle waiter: its try may have read the queue before the messages announced were committed, so
 * it tries again at once. A waiter whose client has left is not tried; one that took messages for a client that left
 * meanwhile gives them back at once, and their wake goes on to the next.
 *
 * @param <T> the outcome of one try
 */
final class Waiter<T> {

    private static final Logger LOG = Logger.getLogger(QueueWaits.class);

    final int wanted;
    private final QueueWaits.Attempt<T> attempt;
    private final BooleanSupplier connected;
    private final T nothing;
    private final UniEmitter<? super T> emitter;
    private final QueueLine.Timers timers;
    /** Runs once, as the waiter leaves its line (its place in the admission's counts is free). */
    private final Runnable left;
    /** The request's own context: it is answered there. */
    private final Context context = Vertx.currentContext();

    final AtomicBoolean done = new AtomicBoolean();
    /** Set once, as the waiter joins its line. */
    volatile QueueLine line;

    private volatile long deadline = -1;
    /** Guarded by the line. */
    boolean trying;
    /** Guarded by the line: the wait ended during a try, whose outcome is the answer. */
    private boolean lastTry;
    /** Guarded by the line: the line's {@code wakesWhileTrying} when the current try began. */
    long triedAfter;

    Waiter(
            int wanted,
            QueueWaits.Attempt<T> attempt,
            BooleanSupplier connected,
            T nothing,
            UniEmitter<? super T> emitter,
            QueueLine.Timers timers,
            Runnable left) {
        this.wanted = wanted;
        this.attempt = attempt;
        this.connected = connected;
        this.nothing = nothing;
        this.emitter = emitter;
        this.timers = timers;
        this.left = left;
    }

    /** Its wait ends in {@code millis}. */
    void waitFor(long millis) {
        deadline = timers.set(millis, id -> deadlinePassed());
    }

    void tryOnce() {
        if (done.get()) {
            return;
        }
        if (!connected.getAsBoolean()) {
            abandon(); // the client left: nothing is taken for it
            return;
        }
        Uni<T> run;
        try {
            run = attempt.run();
        } catch (RuntimeException e) {
            fail(e);
            return;
        }
        run.subscribe().with(this::tried, this::fail);
    }

    private void tried(T outcome) {
        int taken = attempt.taken(outcome);
        QueueLine line = this.line;
        if (taken > 0) {
            if (!answer(outcome)) {
                // Its client left while the statement ran: what it took is free again at once.
                attempt.giveBack(outcome)
                        .subscribe()
                        .with(
                                ignored -> line.wake(taken),
                                failure -> LOG.warnf(
                                        "Could not give back what a departed waiter took: %s", failure.toString()));
            } else if (taken >= wanted) {
                line.wake(1); // more may be free
            }
            return;
        }
        boolean last;
        boolean again = false;
        synchronized (line) {
            last = lastTry;
            if (!last && !done.get() && line.wakesWhileTrying != triedAfter) {
                // Woken while this try ran: what woke it may not have been visible to it yet.
                again = true;
                triedAfter = line.wakesWhileTrying;
            } else {
                trying = false;
                if (!last && !done.get()) {
                    line.idle.addFirst(this);
                }
            }
        }
        if (again) {
            tryOnce();
        } else if (last) {
            answerNothing();
        } else if (!done.get()) {
            line.readNextFree();
        }
    }

    private void deadlinePassed() {
        deadline = -1;
        QueueLine line = this.line;
        if (line != null) {
            synchronized (line) {
                if (trying) {
                    lastTry = true;
                    return;
                }
            }
        }
        answerNothing();
    }

    void answerNothing() {
        answer(nothing);
    }

    /** Answers the request unless it was answered or its client left; false then. */
    private boolean answer(T outcome) {
        if (!leave()) {
            return false;
        }
        if (!connected.getAsBoolean()) {
            return false;
        }
        emit(() -> emitter.complete(outcome));
        return true;
    }

    void fail(Throwable failure) {
        if (leave()) {
            emit(() -> emitter.fail(failure));
        }
    }

    /** The request was cancelled (its client left): it leaves the line. */
    void abandon() {
        leave();
    }

    /** Leaves the line once; false if it had left already. */
    private boolean leave() {
        if (!done.compareAndSet(false, true)) {
            return false;
        }
        long timer = deadline;
        if (timer >= 0) {
            timers.cancel(timer);
        }
        QueueLine held = line;
        if (held != null) {
            synchronized (held) {
                held.idle.remove(this);
                held.waiters.remove(this);
                trying = false;
            }
        }
        left.run();
        return true;
    }

    private void emit(Runnable answer) {
        if (context == null || Vertx.currentContext() == context) {
            answer.run();
        } else {
            context.runOnContext(ignored -> answer.run());
        }
    }
}
