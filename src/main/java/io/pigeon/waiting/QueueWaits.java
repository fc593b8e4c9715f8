package io.pigeon.waiting;

import io.pigeon.queue.ClaimWaitSettings;
import io.pigeon.queue.PlacedQueue;
import io.pigeon.queue.ReservedAttributes;
import io.pigeon.rules.Rejection;
import io.pigeon.tenancy.SignedUrlSettings;
import io.quarkus.runtime.ShutdownDelayInitiatedEvent;
import io.quarkus.runtime.ShutdownEvent;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.subscription.UniEmitter;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import org.jboss.logging.Logger;

/**
 * Claims and pops that wait for a message (Pigeon's long polling): a request that found nothing free waits here, costing
 * no statement while it waits, until a message may be free for it, its wait ends (it is answered as an empty claim or
 * pop), its client leaves, or the replica stops.
 *
 * <p>What wakes a queue's waiters, on any replica: a notice on {@link QueueReady#CHANNEL}, which a post or a release
 * sends when the queue's row carries a live mark ({@code wake_until}, made and renewed by {@link WakeMarks} while this
 * replica holds waiters for the queue, heard through {@link WaitersListener}); and a timer at the moment the queue's
 * next message comes free by itself (a delay or a claim ending), read in one statement after an empty try. Whom a wake
 * tries, in what order, is the rule of the queue's line ({@link QueueLine}, {@link Waiter}). This class is their face:
 * it admits a request ({@link WaitAdmission}: 429 past the replica's, the project's or the grant's bound) and puts it
 * in its queue's line. A door ends the wait of a client that closed its connection by cancelling the request's
 * {@code Uni} (Quarkus REST does so for a resource's; the SQS door registers its own close handler): the waiter leaves
 * its line at once, freeing its place, rather than when next tried or at the end of its wait.
 *
 * <p>A {@link Watch} is interest in a queue's notices that takes nothing (a KEDA scaler's stream waiting for its queue
 * to fill): it marks the queue and listens exactly as a waiter does, sharing the queue's line with its waiters, and is
 * told of every notice and of every moment notices may have been missed (the mark made or renewed after it lapsed, a
 * late post, the LISTEN connection back); it is never tried and never takes a wake from a waiter. Its holder bounds
 * how many there are.
 */
@ApplicationScoped
public class QueueWaits {

    private static final Logger LOG = Logger.getLogger(QueueWaits.class);

    /** The queue attribute that gives its claims and pops a wait when they name none (not shown unless set). */
    public static final String DEFAULT_ATTRIBUTE = ReservedAttributes.CLAIM_WAIT_SECONDS;

    /** What a waiting request does each time it is woken: one claim or one pop. */
    public interface Attempt<T> {
        /** Takes what is free. */
        Uni<T> run();

        /** How many messages the outcome took; 0 when nothing was free. */
        int taken(T outcome);

        /** Gives back what the outcome took, its client having left before it could be answered. */
        Uni<Void> giveBack(T outcome);
    }

    private final WaitStore store;
    private final WakeMarks marks;
    private final ClaimWaitSettings config;
    private final WaitAdmission admission;

    private volatile boolean stopping;

    public QueueWaits(
            WaitStore store,
            WakeMarks marks,
            SignedUrlSettings signedUrlSettings,
            ClaimWaitSettings claimWaitSettings) {
        this.store = store;
        this.marks = marks;
        this.config = claimWaitSettings;
        this.admission = new WaitAdmission(
                this.config.maxWaiters(), this.config.maxWaitersPerProject(), signedUrlSettings.maxWaitersPerGrant());
    }

    /** The longest wait, in seconds. */
    public int maxSeconds() {
        return config.max();
    }

    /**
     * The notices seen so far for the queue, to take before a request's first try and hand to {@link #await}: a notice
     * that came between the two makes the waiter try again at once.
     */
    public long seen(PlacedQueue queue) {
        QueueLine line = marks.line(key(queue));
        if (line == null) {
            return -1;
        }
        return line.seen();
    }

    /**
     * Waits up to {@code seconds} for {@code attempt} to take something, trying it whenever a message may be free; its
     * outcome, or {@code nothing} when the wait ends first or the replica stops. {@code wanted} is how many messages a
     * try asks for. {@code grant} is the signature of the pre-signed URL that admitted the request (null when the
     * project's own credentials did): its waiters count against the grant's bound instead of the project's, so that a
     * grant's holder cannot take the project's places. Refused (429) beyond the replica's bound, or the grant's or the
     * project's.
     */
    public <T> Uni<T> await(
            PlacedQueue queue,
            String grant,
            long seen,
            int seconds,
            int wanted,
            Attempt<T> attempt,
            BooleanSupplier connected,
            T nothing) {
        return Uni.createFrom().deferred(() -> {
            if (stopping || seconds <= 0) {
                return Uni.createFrom().item(nothing);
            }
            admission.admit(queue.project(), grant);
            return Uni.createFrom().<T>emitter(emitter -> {
                Waiter<T> waiter = new Waiter<>(
                        wanted,
                        attempt,
                        connected,
                        nothing,
                        emitter,
                        marks.timers(),
                        () -> admission.left(queue.project(), grant));
                emitter.onTermination(waiter::abandon);
                waiter.waitFor(seconds * 1000L);
                join(key(queue), waiter, seen);
            });
        });
    }

    private static QueueLine.Key key(PlacedQueue queue) {
        return new QueueLine.Key(queue.db(), queue.project(), queue.storedName());
    }

    /** The queue's {@code _claim_wait_seconds} (0 when it sets none); empty when the queue does not exist. */
    public Uni<Optional<Integer>> queueDefault(PlacedQueue queue) {
        return store.nextFree(queue.db(), queue.project(), queue.storedName())
                .map(found -> found.map(free -> free.waitDefault() == null ? 0 : Math.max(0, free.waitDefault())));
    }

    /** Requests waiting on this replica now (for tests and metrics). */
    public int waiting() {
        return admission.waiting();
    }

    /** The waiter joins its queue's line; a notice since {@code seen} (its first try may have missed) wakes it. */
    private void join(QueueLine.Key key, Waiter<?> waiter, long seen) {
        QueueLine.Entered entered = marks.enter(key, line -> line.join(waiter));
        if (entered.established() && entered.notices() != seen) {
            entered.line().wake(Integer.MAX_VALUE);
        }
    }

    /**
     * Watches the queue: completes with the watch once the queue is marked and this replica listens for its notices;
     * from then on {@code told} runs (on any thread) at each notice for it and each moment a notice may have been
     * missed, until {@link Watch#close}. Empty when the queue does not exist (nothing marks a queue its first post
     * creates); failed when it cannot be marked or listened for.
     */
    public Uni<Optional<Watch>> watch(PlacedQueue queue, Runnable told) {
        return Uni.createFrom().<Optional<Watch>>emitter(emitter -> {
            if (stopping) {
                emitter.fail(new Rejection(Rejection.Reason.UNAVAILABLE, "The server is stopping."));
                return;
            }
            Watch watch = new Watch(told, emitter);
            emitter.onTermination(() -> {
                if (!watch.readied) {
                    watch.close(); // cancelled before it was ready
                }
            });
            QueueLine.Entered entered = marks.enter(key(queue), line -> line.join(watch));
            if (entered.established()) {
                watch.ready();
            }
        });
    }

    /** Interest in one queue's notices, held until closed; see {@link #watch}. */
    public final class Watch {
        private final Runnable told;
        private final UniEmitter<? super Optional<Watch>> readiness;
        /** Set once, as the watch enters its line. */
        volatile QueueLine line;

        private volatile boolean readied;

        private Watch(Runnable told, UniEmitter<? super Optional<Watch>> readiness) {
            this.told = told;
            this.readiness = readiness;
        }

        void ready() {
            readied = true;
            readiness.complete(Optional.of(this));
        }

        void tell() {
            try {
                told.run();
            } catch (RuntimeException e) {
                LOG.warnf("A watch of queue %s failed at a notice: %s", line.key.name(), e.toString());
            }
        }

        /** Not ready: the queue does not exist ({@code failure} null), or it could not be marked or listened for. */
        void refused(Throwable failure) {
            if (failure == null) {
                readiness.complete(Optional.empty());
            } else {
                readiness.fail(failure);
            }
        }

        /** No longer told; the queue's mark lapses once no waiter or watch holds it. */
        public void close() {
            QueueLine held = line;
            if (held != null) {
                synchronized (held) {
                    held.watchers.remove(this);
                }
            }
        }
    }

    /** Answers every waiter now (as an empty claim or pop) and takes no new wait: the replica is stopping. */
    void stop(@Observes ShutdownDelayInitiatedEvent shutdown) {
        stopAll();
    }

    void stop(@Observes ShutdownEvent shutdown) {
        stopAll();
        marks.stopListening();
    }

    private void stopAll() {
        stopping = true;
        marks.answerAll();
    }
}
