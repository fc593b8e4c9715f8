package io.pigeon.dispatch;

import io.pigeon.config.PigeonConfig;
import io.pigeon.storage.DatabaseNotices;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.SqlClient;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jboss.logging.Logger;

/**
 * The planning of one database: one pass at a time takes as many due groups as there are call slots for, then
 * sleeps until the next fire time ({@code max-sleep} at most); a push due sooner wakes it, in-process through
 * {@link Dispatcher#pushed} or from another replica through LISTEN on {@link DispatchStore#CHANNEL}, on the replica's
 * {@link DatabaseNotices} connection to that database. A database that does not answer pauses its own lane only.
 * When that connection comes back after a loss, pushes announced meanwhile were not heard: the lane plans again at
 * once, which finds every group due by then (the groups are the record, a notice only wakes).
 *
 * <p>A group is leased while its call runs: its fire time is the lease's end, so if this process dies the group
 * fires again elsewhere once the lease is over. The lease lasts the call's hard deadline plus a margin, so a live
 * call always ends inside it and no second replica calls the same group meanwhile.
 */
final class Lane {

    /** The dispatcher's category: one logger to turn up for the whole delivery engine. */
    private static final Logger LOG = Logger.getLogger(Dispatcher.class);

    /** Time beyond the call's own timeouts for finishing it (the database round trips). */
    static final Duration LEASE_MARGIN = Duration.ofSeconds(5);
    /** Pause before planning again after the database failed. */
    private static final long FAILURE_PAUSE_MILLIS = 1000;
    /** Shortest sleep, when a due group is locked by another replica's take that has not committed yet. */
    private static final long MIN_SLEEP_MILLIS = 20;
    /** The name of the configured database's lane. */
    static final String HOME = "";

    /** What a lane hands back to the dispatcher it belongs to. */
    interface Owner {
        /** Starts the call of {@code group}, taken by {@code lane} into a slot it had reserved. */
        void deliver(Lane lane, DispatchStore.TakenGroup group);

        /** {@code lane} gave back slots it had reserved and not filled: the lanes that found none free look again. */
        void slotsGivenBack(Lane lane);
    }

    private final String name;
    private final Pool db;
    private final DatabaseNotices notices;
    private final Vertx vertx;
    private final DispatchStore store;
    private final PigeonConfig.Dispatch config;
    private final CallSlots slots;
    private final Owner owner;
    private final long leaseMillis;

    private final AtomicBoolean planning = new AtomicBoolean();
    private volatile boolean wakeRequested;
    private volatile boolean stopped = true;
    /**
     * The database-clock time (unix seconds) the lane will next look at the groups by itself: a push due earlier
     * wakes it, a later one needs nothing. +infinity while planning (any push may have been missed); -infinity
     * while every call slot is busy (a finishing call wakes it).
     */
    private volatile double plannedFor = Double.POSITIVE_INFINITY;

    private long timerId = -1;
    /** Its subscription to the push channel; guarded by {@code this}. */
    private DatabaseNotices.Listening listening;
    /** Its last attempt to LISTEN failed (logged once until one succeeds). */
    private volatile boolean listenFailing;

    /** The lane of database {@code db}, named {@code name} ({@link #HOME} for the configured database); not started. */
    Lane(
            String name,
            Pool db,
            DatabaseNotices notices,
            Vertx vertx,
            DispatchStore store,
            PigeonConfig.Dispatch config,
            CallSlots slots,
            Owner owner) {
        this.name = name;
        this.db = db;
        this.notices = notices;
        this.vertx = vertx;
        this.store = store;
        this.config = config;
        this.slots = slots;
        this.owner = owner;
        this.leaseMillis = leaseFor(config).toMillis();
    }

    /** A group's lease: always longer than the call's hard deadline. */
    static Duration leaseFor(PigeonConfig.Dispatch config) {
        return config.callTimeout().plus(LEASE_MARGIN);
    }

    /** The database this lane plans for. */
    Pool db() {
        return db;
    }

    /** Whether this is the lane of {@code client}. */
    boolean serves(SqlClient client) {
        return db == client;
    }

    private String describe() {
        return name.equals(HOME) ? "the configured database" : "pool " + name;
    }

    void start() {
        stopped = false;
        listen();
        wake();
    }

    void stop() {
        stopped = true;
        synchronized (this) {
            if (timerId >= 0) {
                vertx.cancelTimer(timerId);
            }
            if (listening != null) {
                listening.unlisten();
                listening = null;
            }
        }
    }

    /**
     * A group of this database became due at {@code dueAt} (unix seconds, database clock): plans at once if that
     * is sooner than the lane planned to look.
     */
    void pushed(double dueAt) {
        if (dueAt < plannedFor) {
            wake();
        }
    }

    /**
     * A call slot came free: plans again if the lane waits for one, or is planning now (it may have found none free
     * a moment ago and not yet said so: it plans once more).
     */
    void slotFreed() {
        if (Double.isInfinite(plannedFor)) {
            wake();
        }
    }

    void wake() {
        if (stopped) {
            return;
        }
        wakeRequested = true;
        if (planning.compareAndSet(false, true)) {
            plan();
        }
    }

    private void plan() {
        try {
            planUnguarded();
        } catch (RuntimeException e) {
            pauseAfter(e);
        }
    }

    private void planUnguarded() {
        plannedFor = Double.POSITIVE_INFINITY;
        wakeRequested = false;
        if (stopped) {
            endPlanning();
            return;
        }
        int room = slots.reserve();
        if (room == 0) {
            // A call that finishes wakes the lane again.
            plannedFor = Double.NEGATIVE_INFINITY;
            endPlanning();
            return;
        }
        Map<String, Integer> busy = slots.callsByProject();
        int share = slots.perProject();
        store.takeDue(db, room, leaseMillis, config.maxItemsPerCall(), config.maxCallBytes(), busy, share)
                .onTermination()
                .invoke((taken, failure, cancelled) -> {
                    if (slots.endReservation(room, room - (taken == null ? 0 : taken.size()))) {
                        owner.slotsGivenBack(this);
                    }
                })
                .subscribe()
                .with(
                        taken -> {
                            try {
                                taken.forEach(group -> owner.deliver(this, group));
                                if (!taken.isEmpty()) {
                                    // More may be due (of this or of projects whose share was full a moment ago).
                                    plan();
                                    return;
                                }
                                store.nextDue(db, slots.saturatedProjects())
                                        .subscribe()
                                        .with(
                                                next -> {
                                                    double maxSleep =
                                                            config.maxSleep().toMillis() / 1000.0;
                                                    double wakeAt = next.nextDue() == null
                                                            ? next.now() + maxSleep
                                                            : Math.min(next.nextDue(), next.now() + maxSleep);
                                                    sleep((long) Math.ceil((wakeAt - next.now()) * 1000));
                                                    plannedFor = wakeAt;
                                                    endPlanning();
                                                },
                                                this::pauseAfter);
                            } catch (RuntimeException e) {
                                pauseAfter(e);
                            }
                        },
                        this::pauseAfter);
    }

    private void pauseAfter(Throwable failure) {
        LOG.warnf(
                "The dispatcher could not reach %s, retrying in %d ms: %s",
                describe(), FAILURE_PAUSE_MILLIS, failure.toString());
        sleep(FAILURE_PAUSE_MILLIS);
        endPlanning();
    }

    private void endPlanning() {
        planning.set(false);
        if (wakeRequested && !stopped && planning.compareAndSet(false, true)) {
            plan();
        }
    }

    private synchronized void sleep(long millis) {
        if (stopped) {
            return;
        }
        if (timerId >= 0) {
            vertx.cancelTimer(timerId);
        }
        long bounded =
                Math.max(MIN_SLEEP_MILLIS, Math.min(millis, config.maxSleep().toMillis()));
        timerId = vertx.setTimer(bounded, id -> {
            synchronized (this) {
                if (timerId == id) {
                    timerId = -1;
                }
            }
            wake();
        });
    }

    /** A notification's payload is the pushed group's due time, or empty for "look now". */
    private void notified(String payload) {
        try {
            double dueAt =
                    payload == null || payload.isEmpty() ? Double.NEGATIVE_INFINITY : Double.parseDouble(payload);
            pushed(dueAt);
        } catch (NumberFormatException e) {
            wake();
        }
    }

    /**
     * LISTEN on the push channel; after a reconnect of the notices connection it plans at once (what was announced
     * meanwhile is due already). When the database cannot be listened to, it tries again after a pause.
     */
    private synchronized void listen() {
        if (stopped) {
            return;
        }
        DatabaseNotices.Listening subscription =
                notices.listen(db, DispatchStore.CHANNEL, new DatabaseNotices.Subscriber() {
                    @Override
                    public void noticed(String payload) {
                        notified(payload);
                    }

                    @Override
                    public void reconnected() {
                        wake();
                    }
                });
        listening = subscription;
        subscription
                .ready()
                .subscribe()
                .with(
                        listened -> {
                            if (listenFailing) {
                                listenFailing = false;
                                LOG.infof("The dispatcher listens for pushes on %s again", describe());
                            }
                            // Subscribed: anything pushed before is picked up now.
                            wake();
                        },
                        failure -> {
                            if (!listenFailing) {
                                listenFailing = true;
                                LOG.warnf(
                                        "The dispatcher could not LISTEN for pushes on %s, retrying every %d ms: %s",
                                        describe(), FAILURE_PAUSE_MILLIS, failure.toString());
                            }
                            synchronized (this) {
                                if (listening == subscription) {
                                    listening = null;
                                }
                            }
                            if (!stopped) {
                                vertx.setTimer(FAILURE_PAUSE_MILLIS, id -> listen());
                            }
                        });
    }
}
