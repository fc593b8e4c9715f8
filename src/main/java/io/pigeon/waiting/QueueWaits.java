package io.pigeon.waiting;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pigeon.config.PigeonConfig;
import io.pigeon.pool.PoolClients;
import io.pigeon.queue.PlacedQueue;
import io.pigeon.queue.ReservedAttributes;
import io.pigeon.rules.Rejection;
import io.quarkus.runtime.ShutdownDelayInitiatedEvent;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.scheduler.Scheduled;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.subscription.UniEmitter;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.pgclient.pubsub.PgSubscriber;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.pgclient.PgConnectOptions;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.LongConsumer;
import org.jboss.logging.Logger;

/**
 * Claims and pops that wait for a message (Pigeon's long polling): a request that found nothing free waits here, costing
 * no statement while it waits, until a message may be free for it, its wait ends (it is answered as an empty claim or
 * pop), its client leaves, or the replica stops.
 *
 * <p>What wakes a queue's waiters, on any replica: a notice on {@link QueueReady#CHANNEL}, which a post or a release
 * sends when the queue's row carries a live mark ({@code wake_until}, renewed here every
 * {@code pigeon.claim-wait.renewal} while this replica holds waiters for the queue); and a timer at the moment the
 * queue's next message comes free by itself (a delay or a claim ending), read in one statement after an empty try. This
 * replica LISTENs on one connection per database it holds waiters on ({@code application_name} pigeon-waiters), opened
 * before the queue is marked, so that no notice sent for a mark it made can be missed while the connection is up; after
 * the connection comes back, every waiter of that database tries again.
 *
 * <p>A wake tries the queue's waiters in the order they came, as many as the notice says messages came free (at least
 * one): each try is one claim (or pop) through the usual shared statements. A waiter that took as many messages as it
 * asked for passes the wake on to the next (more may be free); one that found nothing goes back to the head of the line
 * and the queue's next-free time is read again, unless a wake came while it was tried that found no idle waiter: its
 * try may have read the queue before the messages announced were committed, so it tries again at once. A waiter whose
 * client has left is not tried; one that took messages for a client that left meanwhile gives them back at once.
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
    private static final ObjectMapper JSON = new ObjectMapper();

    /** The queue attribute that gives its claims and pops a wait when they name none (not shown unless set). */
    public static final String DEFAULT_ATTRIBUTE = ReservedAttributes.CLAIM_WAIT_SECONDS;

    private static final long RECONNECT_MILLIS = 1000;
    /**
     * After a queue is first marked, its waiters try again at once and once more this much later: a post that began
     * before the mark was committed did not see it, and commits within this time, in all but a stalled database.
     */
    private static final long LATE_POST_MILLIS = 500;

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
    private final PoolClients poolClients;
    private final Vertx vertx;
    private final PigeonConfig.ClaimWait config;
    private final WaitAdmission admission;

    private final Map<QueueLine.Key, QueueLine> lines = new ConcurrentHashMap<>();
    private final Map<SqlClient, Listener> listeners = new ConcurrentHashMap<>();

    private final QueueLine.Timers timers;
    private final QueueLine.NextFree nextFree;

    private volatile boolean stopping;

    public QueueWaits(WaitStore store, PoolClients poolClients, Vertx vertx, PigeonConfig config) {
        this.store = store;
        this.poolClients = poolClients;
        this.vertx = vertx;
        this.config = config.claimWait();
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
        this.admission = new WaitAdmission(
                this.config.maxWaiters(),
                this.config.maxWaitersPerProject(),
                config.signedUrl().maxWaitersPerGrant());
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
        QueueLine line = lines.get(key(queue));
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
                        timers,
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

    private void join(QueueLine.Key key, Waiter<?> waiter, long seen) {
        QueueLine.Entered entered = enter(key, line -> line.join(waiter));
        if (entered.establish()) {
            establish(entered.line());
        } else if (entered.established() && entered.notices() != seen) {
            entered.line().wake(Integer.MAX_VALUE);
        }
    }

    /** Adds a member to the queue's line ({@code join}), making the line when there is none. */
    private QueueLine.Entered enter(QueueLine.Key key, Function<QueueLine, QueueLine.Entered> join) {
        while (true) {
            QueueLine.Entered entered = join.apply(lines.computeIfAbsent(key, k -> new QueueLine(k, timers, nextFree)));
            if (entered != null) {
                return entered;
            }
            // dropped by a renewal between the lookup and the join: make a new one
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
            QueueLine.Entered entered = enter(key(queue), line -> line.join(watch));
            if (entered.establish()) {
                establish(entered.line());
            } else if (entered.established()) {
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

    /** Listens on the queue's database, then marks the queue; its waiters then try again (see LATE_POST_MILLIS). */
    private void establish(QueueLine line) {
        listening(line.key.db())
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

    /** Called for each notice: so many messages came free in the queue. */
    private void noticed(SqlClient db, String project, String name, int messages) {
        QueueLine line = lines.get(new QueueLine.Key(db, project, name));
        if (line != null) {
            line.noticed(messages);
        }
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
        Map<SqlClient, List<QueueLine>> byDatabase = new IdentityHashMap<>();
        for (QueueLine line : lines.values()) {
            if (!line.keptAtRenewal()) {
                lines.remove(line.key, line);
            } else if (line.established) {
                byDatabase
                        .computeIfAbsent(line.key.db(), db -> new ArrayList<>())
                        .add(line);
            }
        }
        List<Uni<Void>> renewals = new ArrayList<>();
        byDatabase.forEach((db, held) -> renewals.add(store.lease(
                        db,
                        held.stream().map(line -> line.key.project()).toList(),
                        held.stream().map(line -> line.key.name()).toList(),
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
                })
                .onFailure()
                .invoke(failure -> LOG.warnf(
                        "Could not renew the marks of %d queues with waiting claims, will retry: %s",
                        held.size(), failure.toString()))
                .onFailure()
                .recoverWithNull()
                .replaceWithVoid()));
        return renewals.isEmpty()
                ? Uni.createFrom().voidItem()
                : Uni.join().all(renewals).andFailFast().replaceWithVoid();
    }

    /** Answers every waiter now (as an empty claim or pop) and takes no new wait: the replica is stopping. */
    void stop(@Observes ShutdownDelayInitiatedEvent shutdown) {
        stopAll();
    }

    void stop(@Observes ShutdownEvent shutdown) {
        stopAll();
        listeners.values().forEach(listener -> listener.subscriber.closeAndForget());
        listeners.clear();
    }

    private void stopAll() {
        stopping = true;
        lines.values().forEach(QueueLine::answerAll);
    }

    /** Ready once this replica LISTENs on {@code db}. */
    private Uni<Void> listening(SqlClient db) {
        Listener known = listeners.get(db);
        if (known != null) {
            return known.ready;
        }
        return poolClients.holding(db).chain(database -> listeners.computeIfAbsent(
                        db, client -> new Listener(database.client(), database.options()))
                .ready);
    }

    /** The LISTEN connection of one database. */
    private final class Listener {
        final SqlClient db;
        final PgSubscriber subscriber;
        final Uni<Void> ready;

        Listener(Pool db, PgConnectOptions base) {
            this.db = db;
            PgConnectOptions options = new PgConnectOptions(base);
            options.addProperty("application_name", "pigeon-waiters");
            subscriber = PgSubscriber.subscriber(vertx, options);
            subscriber.reconnectPolicy(retries -> {
                LOG.warnf("Lost the connection that listens for messages coming free; reconnecting (waiting claims "
                        + "wake at their timers meanwhile)");
                return RECONNECT_MILLIS;
            });
            AtomicBoolean first = new AtomicBoolean(true);
            subscriber.channel(QueueReady.CHANNEL).handler(this::noticed).subscribeHandler(() -> {
                if (!first.compareAndSet(true, false)) {
                    wakeAll(db); // listening again: what was sent meanwhile was not heard
                }
            });
            // The LISTEN is sent before connect() completes (the channel is known): ready means listening.
            ready = subscriber
                    .connect()
                    .onFailure()
                    .invoke(failure -> {
                        listeners.remove(db, this);
                        subscriber.closeAndForget();
                    })
                    .onFailure()
                    .transform(failure -> new Rejection(
                            Rejection.Reason.UNAVAILABLE, "Cannot listen for messages on the queue's database."))
                    .memoize()
                    .indefinitely();
        }

        private void noticed(String payload) {
            try {
                JsonNode notice = JSON.readTree(payload);
                QueueWaits.this.noticed(
                        db,
                        notice.path("project").asText(),
                        notice.path("queue").asText(),
                        (int) Math.min(
                                Integer.MAX_VALUE, notice.path("messages").asLong(1)));
            } catch (Exception e) {
                LOG.warnf("A notice of messages coming free that does not read: %s", e.toString());
            }
        }
    }
}
