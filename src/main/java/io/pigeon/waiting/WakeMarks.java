package io.pigeon.waiting;

import io.pigeon.queue.ClaimWaitSettings;
import io.pigeon.storage.DatabaseNotices;
import io.pigeon.storage.PerDatabaseRenewal;
import io.quarkus.scheduler.Scheduled;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.sqlclient.SqlClient;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.LongConsumer;
import org.jboss.logging.Logger;

/**
 * The queues this replica holds waiters or watches for: each one's {@link QueueLine}, and its wake mark in its
 * database ({@code wake_until}), which makes a post or a release to the queue send a notice while it is live.
 *
 * <p>The first to enter a queue's line establishes it: this replica listens on the queue's database, then marks the
 * queue, then every waiter tries (and once more {@link #LATE_POST_MILLIS} later). Every {@code pigeon.claim-wait.renewal}
 * the marks of the queues held since the last renewal are renewed (one statement per database), and the lines that
 * held nobody are forgotten: their marks then lapse. A mark found lapsed at its renewal (the database was unreachable)
 * wakes its line as a new one does: posts meanwhile told nobody.
 */
@ApplicationScoped
public class WakeMarks {

    private static final Logger LOG = Logger.getLogger(QueueWaits.class);

    /**
     * After a queue is first marked, its waiters try again at once and once more this much later: a post that began
     * before the mark was committed did not see it, and commits within this time, in all but a stalled database.
     */
    private static final long LATE_POST_MILLIS = 500;

    private final WaitStore store;
    private final ClaimWaitSettings config;
    private final WaitersListener listener;
    private final QueueLine.Timers timers;
    private final QueueLine.NextFree nextFree;
    private final Map<QueueLine.Key, QueueLine> lines = new ConcurrentHashMap<>();

    public WakeMarks(WaitStore store, DatabaseNotices notices, Vertx vertx, ClaimWaitSettings claimWaitSettings) {
        this.store = store;
        this.config = claimWaitSettings;
        this.listener = new WaitersListener(notices, new WaitersListener.Heard() {
            @Override
            public void noticed(SqlClient db, String project, String name, int messages) {
                QueueLine line = lines.get(new QueueLine.Key(db, project, name));
                if (line != null) {
                    line.noticed(messages);
                }
            }

            @Override
            public void heardAgain(SqlClient db) {
                wakeAll(db);
            }
        });
        io.vertx.core.Vertx timing = vertx.getDelegate();
        this.timers = new QueueLine.Timers() {
            @Override
            public long set(long millis, LongConsumer fire) {
                return timing.setTimer(millis, fire::accept);
            }

            @Override
            public void cancel(long timer) {
                timing.cancelTimer(timer);
            }
        };
        this.nextFree = key -> store.nextFree(key.db(), key.project(), key.name())
                .map(found -> found.map(WaitStore.NextFree::dueInMillis));
    }

    /** The timers of waiters and lines. */
    QueueLine.Timers timers() {
        return timers;
    }

    /** The queue's line, if this replica holds one. */
    QueueLine line(QueueLine.Key key) {
        return lines.get(key);
    }

    /**
     * Adds a member to the queue's line ({@code join}), making the line when there is none; the first to enter
     * establishes it (see {@link #establish}).
     */
    QueueLine.Entered enter(QueueLine.Key key, Function<QueueLine, QueueLine.Entered> join) {
        while (true) {
            QueueLine.Entered entered = join.apply(lines.computeIfAbsent(key, k -> new QueueLine(k, timers, nextFree)));
            if (entered != null) {
                if (entered.establish()) {
                    establish(entered.line());
                }
                return entered;
            }
            // dropped by a renewal between the lookup and the join: make a new one
        }
    }

    /** Listens on the queue's database, then marks the queue; its waiters then try again (see LATE_POST_MILLIS). */
    private void establish(QueueLine line) {
        listener.listening(line.key.db())
                .chain(() -> store.lease(
                        line.key.db(),
                        List.of(line.key.project()),
                        List.of(line.key.name()),
                        config.lease().toSeconds()))
                .subscribe()
                .with(
                        leased -> {
                            if (leased.isEmpty()) {
                                // No such queue: nothing will come; the waiters are answered now.
                                failAll(line, null);
                                return;
                            }
                            line.established();
                            wakeSoonAndLater(line);
                        },
                        failure -> {
                            LOG.warnf(
                                    "Could not mark queue %s for its waiters: %s", line.key.name(), failure.toString());
                            failAll(line, failure);
                        });
    }

    private void wakeSoonAndLater(QueueLine line) {
        line.wakeAndTell(Integer.MAX_VALUE);
        timers.set(LATE_POST_MILLIS, id -> line.wakeAndTell(Integer.MAX_VALUE));
    }

    /** Answers every waiter of the line: as empty ({@code failure} null) or with the failure; the line goes. */
    private void failAll(QueueLine line, Throwable failure) {
        line.failAll(failure, () -> lines.remove(line.key, line));
    }

    /** Every waiter of {@code db} tries again (its LISTEN connection came back: notices may have been missed). */
    private void wakeAll(SqlClient db) {
        for (QueueLine line : lines.values()) {
            if (line.key.db() == db) {
                line.wakeAndTell(Integer.MAX_VALUE);
            }
        }
    }

    /**
     * Renews the marks of the queues this replica held waiters for since the last renewal (one statement per
     * database), and forgets the lines that held none: their marks then lapse.
     */
    @Scheduled(
            every = "${pigeon.claim-wait.renewal}",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP,
            skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    Uni<Void> renewMarks() {
        List<QueueLine> held = new ArrayList<>();
        for (QueueLine line : lines.values()) {
            if (!line.keptAtRenewal()) {
                lines.remove(line.key, line);
            } else if (line.established) {
                held.add(line);
            }
        }
        return PerDatabaseRenewal.renew(
                held,
                line -> line.key.db(),
                (db, part) -> store.lease(
                                db,
                                part.stream().map(line -> line.key.project()).toList(),
                                part.stream().map(line -> line.key.name()).toList(),
                                config.lease().toSeconds())
                        .invoke(leased -> {
                            for (WaitStore.Leased queue : leased) {
                                if (!queue.wasLive()) {
                                    // The mark had lapsed (the database was unreachable): posts meanwhile told nobody.
                                    QueueLine line = lines.get(new QueueLine.Key(db, queue.project(), queue.name()));
                                    if (line != null) {
                                        wakeSoonAndLater(line);
                                    }
                                }
                            }
                        }),
                config.renewal(),
                LOG,
                "the marks of %d queues with waiting claims");
    }

    /** Answers every waiter now as having found nothing: the replica is stopping. */
    void answerAll() {
        lines.values().forEach(QueueLine::answerAll);
    }

    /** Stops listening: the replica stops. */
    void stopListening() {
        listener.close();
    }
}
