package io.pigeon.waiting;

import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.LongConsumer;
import org.jboss.logging.Logger;

/**
 * The waiters and watches of one queue on one database, and the rules of its line: a wake tries the idle waiters in
 * the order they came, as many as the wake says messages came free (at least one); a waiter that found nothing goes
 * back to the head of the line and the queue's next-free time is read again (one read at a time), its timer armed for
 * then; a wake that found no idle waiter for all it offered is counted, so that a try that began before it tries again
 * (see {@link Waiter}). Nothing is tried before the line is established (its queue marked and listened for): the end
 * of establishing wakes everyone.
 *
 * <p>Its state is guarded by the line itself ({@code synchronized (line)}), which {@link Waiter} shares.
 */
final class QueueLine {

    private static final Logger LOG = Logger.getLogger(QueueWaits.class);

    /** A timer is armed this much after the database said a message comes free, so that it is free when tried. */
    static final long TIMER_MARGIN_MILLIS = 5;

    /** A queue on a database: the line's key. */
    record Key(SqlClient db, String project, String name) {}

    /** The timers of lines and waiters: Vert.x's in the replica, the test's own in a unit test. */
    interface Timers {
        /** Runs {@code fire} with the timer's id in {@code millis}; the id. */
        long set(long millis, LongConsumer fire);

        void cancel(long timer);
    }

    /** Reads when a queue next frees a message by itself: in how many milliseconds (null: not by itself). */
    interface NextFree {
        Uni<Optional<Long>> read(Key key);
    }

    /** A line entered: whether the one entering must establish it, or found it established (and its notices then). */
    record Entered(QueueLine line, boolean establish, boolean established, long notices) {}

    final Key key;
    private final Timers timers;
    private final NextFree nextFree;

    /** Waiters not being tried, in the order they came (one tried and back goes first); guarded by this. */
    final ArrayDeque<Waiter<?>> idle = new ArrayDeque<>();
    /** Every waiter not yet answered, tried or not; guarded by this. */
    final List<Waiter<?>> waiters = new ArrayList<>();
    /** The watches of the queue; guarded by this. */
    final List<QueueWaits.Watch> watchers = new ArrayList<>();

    long notices;
    /**
     * Wakes that found no idle waiter for all they offered (every waiter was being tried), counted; guarded by this.
     * A try that began before such a wake may have read the queue before the messages it announces were committed:
     * when it finds nothing, its waiter tries again at once instead of waiting for a notice already sent.
     */
    long wakesWhileTrying;

    boolean establishing;
    boolean established;
    /** Held a waiter or a watch since the last renewal. */
    boolean used;
    /** Forgotten by a renewal or a failed mark: a new waiter makes a new line. */
    boolean dropped;

    private boolean reading;
    private boolean readAgain;
    private long timer = -1;

    QueueLine(Key key, Timers timers, NextFree nextFree) {
        this.key = key;
        this.timers = timers;
        this.nextFree = nextFree;
    }

    Timers timers() {
        return timers;
    }

    /**
     * Adds {@code waiter} at the end of the line; null when the line was dropped meanwhile (a new one is needed).
     */
    synchronized Entered join(Waiter<?> waiter) {
        if (dropped) {
            return null;
        }
        waiter.line = this;
        idle.addLast(waiter);
        waiters.add(waiter);
        return entered();
    }

    /** Adds {@code watch} to the line; null when the line was dropped meanwhile (a new one is needed). */
    synchronized Entered join(QueueWaits.Watch watch) {
        if (dropped) {
            return null;
        }
        watch.line = this;
        watchers.add(watch);
        return entered();
    }

    private Entered entered() {
        used = true;
        boolean establish = !established && !establishing;
        if (establish) {
            establishing = true;
        }
        return new Entered(this, establish, established, notices);
    }

    /** The notices seen so far, or -1 while the line is not established. */
    synchronized long seen() {
        return established ? notices : -1;
    }

    /** The queue is marked and listened for: its watches are ready (and every waiter is then woken by the caller). */
    void established() {
        List<QueueWaits.Watch> readied;
        synchronized (this) {
            establishing = false;
            established = true;
            readied = new ArrayList<>(watchers);
        }
        readied.forEach(QueueWaits.Watch::ready);
    }

    /** A notice for the queue: so many messages came free. */
    void noticed(int messages) {
        synchronized (this) {
            notices++;
        }
        wakeAndTell(messages);
    }

    /** Tries the line's waiters as {@link #wake} does, and tells its watches. */
    void wakeAndTell(int messages) {
        wake(messages);
        tellWatchers();
    }

    /** Tries the line's first waiters, as many as {@code messages} may serve (at least one). */
    void wake(int messages) {
        List<Waiter<?>> trying = new ArrayList<>();
        synchronized (this) {
            if (!established) {
                return; // establishing: its end wakes them all
            }
            long budget = Math.max(1, messages);
            while (budget > 0 && !idle.isEmpty()) {
                Waiter<?> waiter = idle.pollFirst();
                if (waiter.done.get()) {
                    continue;
                }
                waiter.trying = true;
                waiter.triedAfter = wakesWhileTrying;
                trying.add(waiter);
                budget -= waiter.wanted;
            }
            if (budget > 0 && waiters.size() > trying.size()) {
                wakesWhileTrying++;
            }
        }
        for (Waiter<?> waiter : trying) {
            waiter.tryOnce();
        }
    }

    /** Every watch of the line is told (a notice came, or one may have been missed). */
    private void tellWatchers() {
        List<QueueWaits.Watch> watching;
        synchronized (this) {
            if (watchers.isEmpty()) {
                return;
            }
            watching = new ArrayList<>(watchers);
        }
        watching.forEach(QueueWaits.Watch::tell);
    }

    /**
     * Whether the line is kept at a renewal: it held a waiter or a watch since the last one, or is being established.
     * A line not kept is dropped (a new waiter makes a new one) and its timer cancelled.
     */
    boolean keptAtRenewal() {
        boolean keep;
        synchronized (this) {
            boolean held = !waiters.isEmpty() || !watchers.isEmpty();
            keep = held || used || establishing;
            used = held;
            if (!keep) {
                dropped = true;
            }
        }
        if (!keep) {
            armTimer(null);
        }
        return keep;
    }

    /**
     * Answers every waiter of the line: as empty ({@code failure} null) or with the failure. The line is dropped, and
     * {@code forget} runs before anyone is answered (so that a new waiter meanwhile makes a new line).
     */
    void failAll(Throwable failure, Runnable forget) {
        List<Waiter<?>> all;
        List<QueueWaits.Watch> watching;
        synchronized (this) {
            establishing = false;
            dropped = true;
            all = new ArrayList<>(waiters);
            watching = new ArrayList<>(watchers);
            watchers.clear();
        }
        forget.run();
        for (Waiter<?> waiter : all) {
            if (failure == null) {
                waiter.answerNothing();
            } else {
                waiter.fail(failure);
            }
        }
        for (QueueWaits.Watch watch : watching) {
            watch.refused(failure);
        }
    }

    /** Answers every waiter now as having found nothing (the replica is stopping). */
    void answerAll() {
        List<Waiter<?>> all;
        synchronized (this) {
            all = new ArrayList<>(waiters);
        }
        all.forEach(Waiter::answerNothing);
    }

    /** Reads when the queue next has a message free by itself, and arms its timer; one read at a time. */
    void readNextFree() {
        synchronized (this) {
            if (reading) {
                readAgain = true;
                return;
            }
            reading = true;
        }
        nextFree.read(key)
                .subscribe()
                .with(
                        due -> {
                            armTimer(due.orElse(null));
                            readDone();
                        },
                        failure -> {
                            LOG.debugf("Could not read when queue %s next frees a message: %s", key.name(), failure);
                            armTimer(WaitStore.RECHECK_MILLIS);
                            readDone();
                        });
    }

    private void readDone() {
        boolean again;
        synchronized (this) {
            reading = false;
            again = readAgain;
            readAgain = false;
        }
        if (again) {
            readNextFree();
        }
    }

    private void armTimer(Long dueInMillis) {
        synchronized (this) {
            if (timer >= 0) {
                timers.cancel(timer);
                timer = -1;
            }
            if (dueInMillis == null || idle.isEmpty()) {
                return;
            }
            timer = timers.set(Math.max(1, dueInMillis + TIMER_MARGIN_MILLIS), id -> {
                synchronized (this) {
                    if (timer == id) {
                        timer = -1;
                    }
                }
                wake(1);
            });
        }
    }
}
