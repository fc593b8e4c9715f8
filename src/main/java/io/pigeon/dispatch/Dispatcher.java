package io.pigeon.dispatch;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.pigeon.config.PigeonConfig;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.pgclient.pubsub.PgSubscriber;
import io.vertx.pgclient.PgConnectOptions;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import io.pigeon.pool.PoolClients;
import io.quarkus.scheduler.Scheduled;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.SqlClient;
import org.jboss.logging.Logger;

/**
 * Delivers due groups: the seed's Schedule, Get, Complete and Release, on every database that holds them (the
 * configured one and each registered pool: a lane per database, found again every few seconds so that a pool
 * registered through another replica is served without a restart). Per lane, one planning pass at a time takes
 * as many due groups as there is room for calls, then sleeps until the next fire time, or {@code max-sleep}
 * at most. A push due sooner than that wakes the dispatcher of the replica that stored it, in-process
 * ({@link #pushed}); when that dispatcher is off or busy, the push is announced to the others through
 * LISTEN/NOTIFY on {@link DispatchStore#CHANNEL} (the seed's push channel). A push due later than
 * {@code max-sleep} needs no signal: every dispatcher re-plans within that time and sees it before it is
 * due. There is no polling beyond that re-planning.
 *
 * <p>A group is leased while its call runs: its fire time is the lease's end, so if this process dies the
 * group fires again elsewhere once the lease is over. The lease lasts the call's hard deadline plus a margin,
 * so a live call always ends inside it and no second replica calls the same group meanwhile.
 *
 * <p>The call slots ({@code max-concurrency}) and each project's share of them ({@code max-concurrency-per-project})
 * are this replica's, over all lanes: a lane reserves the slots it may fill before it asks its database. No failure
 * of one call, whatever throws while it is built, sent or completed, stops the dispatcher: that call fails (retried
 * with backoff, then dead) and planning goes on; a pool that does not answer pauses its own lane only.
 */
@ApplicationScoped
public class Dispatcher {

    private static final Logger LOG = Logger.getLogger(Dispatcher.class);

    /** Time beyond the call's own timeouts for finishing it (the database round trips). */
    static final Duration LEASE_MARGIN = Duration.ofSeconds(5);
    /** Pause before planning again after the database failed. */
    private static final long FAILURE_PAUSE_MILLIS = 1000;
    /** Shortest sleep, when a due group is locked by another replica's take that has not committed yet. */
    private static final long MIN_SLEEP_MILLIS = 20;
    /** The lane of the configured database. */
    private static final String HOME = "";

    private final DispatchStore store;
    private final DeliveryClient client;
    private final PigeonConfig.Dispatch config;
    private final Vertx vertx;
    private final PoolClients pools;
    private final long leaseMillis;

    /** Call slots taken: calls in flight, and slots a lane reserved while it asks its database for due groups. */
    private final AtomicInteger inFlight = new AtomicInteger();
    /** Of {@link #inFlight}, the slots reserved by lanes asking their databases (not calls). */
    private final AtomicInteger reserved = new AtomicInteger();
    /** Calls in flight per project, for the per-project share. */
    private final Map<String, Integer> inFlightByProject = new ConcurrentHashMap<>();
    /** One lane per database that holds groups, by pool name ({@link #HOME} for the configured database). */
    private final Map<String, Lane> lanes = new ConcurrentHashMap<>();
    /** A pass over the pools asked for by a push to a database without a lane is under way. */
    private final AtomicBoolean followingOnDemand = new AtomicBoolean();
    private volatile boolean running;

    private final Counter delivered;
    private final Counter failed;
    private final Counter buried;
    private final Counter deferred;
    private final Timer lateness;

    public Dispatcher(DispatchStore store, DeliveryClient client, PigeonConfig config,
            Vertx vertx, MeterRegistry registry, PoolClients pools) {
        this.store = store;
        this.client = client;
        this.config = config.dispatch();
        this.vertx = vertx;
        this.pools = pools;
        this.leaseMillis = leaseFor(this.config).toMillis();
        delivered = Counter.builder("pigeon.dispatch.calls").tag("outcome", "delivered")
                .description("Calls of the delivery engine, by outcome").register(registry);
        failed = Counter.builder("pigeon.dispatch.calls").tag("outcome", "failed")
                .description("Calls of the delivery engine, by outcome").register(registry);
        deferred = Counter.builder("pigeon.dispatch.calls").tag("outcome", "deferred")
                .description("Calls of the delivery engine, by outcome").register(registry);
        buried = Counter.builder("pigeon.dispatch.dead").description("Groups moved to the dead state")
                .register(registry);
        lateness = Timer.builder("pigeon.dispatch.lateness").description("How long after its fire time a group was taken")
                .publishPercentileHistogram().register(registry);
    }

    /** A group's lease: always longer than the call's hard deadline. */
    static Duration leaseFor(PigeonConfig.Dispatch config) {
        return config.callTimeout().plus(LEASE_MARGIN);
    }

    void start(@Observes StartupEvent started) {
        if (!config.enabled()) {
            LOG.info("The dispatcher is off on this replica (pigeon.dispatch.enabled=false)");
            return;
        }
        running = true;
        followPools().subscribe().with(done -> { }, failure -> LOG.warnf(
                "The dispatcher could not read the registered pools, retrying: %s", failure.toString()));
    }

    void stop(@Observes ShutdownEvent stopping) {
        running = false;
        lanes.values().forEach(Lane::stop);
        lanes.clear();
    }

    /**
     * Starts a lane for each database that holds groups and has none, stops the lanes of pools deleted or moved. The
     * configured database's lane never stops.
     */
    @Scheduled(every = "5s", concurrentExecution = Scheduled.ConcurrentExecution.SKIP,
            skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    Uni<Void> followPools() {
        if (!running) {
            return Uni.createFrom().voidItem();
        }
        return pools.everyDatabase()
                .invoke(this::follow)
                .onFailure().invoke(failure -> LOG.warnf("The dispatcher could not read the registered pools, will retry: %s",
                        failure.toString()))
                .onFailure().recoverWithNull()
                .replaceWithVoid();
    }

    /** One lane per database of {@code databases}, each on its current client; synchronized: passes may race. */
    private synchronized void follow(List<PoolClients.Named> databases) {
        Set<String> current = new HashSet<>();
        for (PoolClients.Named database : databases) {
            String name = database.home() ? HOME : database.name();
            current.add(name);
            Lane known = lanes.get(name);
            if (known != null && known.db == database.client()) {
                continue;
            }
            Lane lane = new Lane(name, database.client(), database.options());
            if (known != null) {
                known.stop();
            }
            lanes.put(name, lane);
            // Started on its own turn of the event loop: what its first planning meets is its own, not this pass's.
            vertx.runOnContext(() -> {
                if (running && lanes.get(name) == lane) {
                    lane.start();
                }
            });
        }
        lanes.forEach((name, lane) -> {
            if (!current.contains(name) && lanes.remove(name, lane)) {
                lane.stop();
            }
        });
    }

    /**
     * Whether this replica's dispatcher will take a push that is due soon by itself: it runs and has a free
     * call slot. Otherwise a push is announced to the other replicas (NOTIFY costs every committing
     * transaction a global lock, so it is sent only when needed).
     */
    public boolean servesPushes() {
        // A lane's reservation is not a call: its pass will see the push (or the next one will).
        return running && inFlight.get() - reserved.get() < config.maxConcurrency();
    }

    /**
     * A push stored on {@code db} made a group due at {@code dueAt} (unix seconds, database clock): wakes that
     * database's lane if that is sooner than it planned to look.
     */
    public void pushed(SqlClient db, double dueAt) {
        Lane lane = laneOf(db);
        if (lane == null) {
            // A pool this replica does not follow yet: its lane starts now and looks at once. One catalogue read at a
            // time, however many posts to that pool arrive meanwhile (the 5 s pass covers one that read too early).
            if (followingOnDemand.compareAndSet(false, true)) {
                followPools().onTermination().invoke(() -> followingOnDemand.set(false)).subscribe().with(done -> { });
            }
        } else if (dueAt < lane.plannedFor) {
            lane.wake();
        }
    }

    /** Re-plans the lane of {@code db} as soon as possible: something there may be due sooner than planned. */
    public void wake(SqlClient db) {
        pushed(db, Double.NEGATIVE_INFINITY);
    }

    private Lane laneOf(SqlClient db) {
        for (Lane lane : lanes.values()) {
            if (lane.db == db) {
                return lane;
            }
        }
        return null;
    }

    /** The slots a lane may fill now, taken from the free ones (0 when none is free). */
    private int reserveSlots() {
        while (true) {
            int taken = inFlight.get();
            int room = config.maxConcurrency() - taken;
            if (room <= 0) {
                return 0;
            }
            if (inFlight.compareAndSet(taken, taken + room)) {
                reserved.addAndGet(room);
                return room;
            }
        }
    }

    /**
     * Ends a lane's reservation of {@code room} slots, of which {@code unused} were not filled with calls: those are given
     * back, and the lanes that found none free look again.
     */
    private void releaseSlots(Lane reserving, int room, int unused) {
        reserved.addAndGet(-room);
        if (unused > 0) {
            inFlight.addAndGet(-unused);
            wakeWaiting(reserving);
        }
    }

    /** A slot has come free: the lane of the call that ended, and the lanes that found none free, look again. */
    private void slotFreed(Lane finished) {
        finished.wake();
        wakeWaiting(finished);
    }

    /**
     * Wakes the lanes that wait for a slot, and those planning now (which may have found none free a moment ago and
     * not yet said so: they plan once more).
     */
    private void wakeWaiting(Lane except) {
        lanes.values().forEach(lane -> {
            if (lane != except && Double.isInfinite(lane.plannedFor)) {
                lane.wake();
            }
        });
    }

    /**
     * The planning of one database: its due groups taken, its next fire time slept until, its pushes listened for
     * (LISTEN on its own connection to that database).
     */
    private final class Lane {
        private final String name;
        private final Pool db;
        private final PgConnectOptions listenOptions;
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
        private PgSubscriber subscriber;

        Lane(String name, Pool db, PgConnectOptions listenOptions) {
            this.name = name;
            this.db = db;
            this.listenOptions = listenOptions;
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
            }
            if (subscriber != null) {
                subscriber.closeAndForget();
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
            int room = reserveSlots();
            if (room == 0) {
                // A call that finishes wakes the lane again.
                plannedFor = Double.NEGATIVE_INFINITY;
                endPlanning();
                return;
            }
            Map<String, Integer> busy = Map.copyOf(inFlightByProject);
            int share = config.maxConcurrencyPerProject();
            store.takeDue(db, room, leaseMillis, config.maxItemsPerCall(), config.maxCallBytes(), busy, share)
                    .onTermination().invoke((taken, failure, cancelled) -> releaseSlots(this, room,
                            room - (taken == null ? 0 : taken.size())))
                    .subscribe().with(taken -> {
                        try {
                            taken.forEach(group -> deliver(this, group));
                            if (!taken.isEmpty()) {
                                // More may be due (of this or of projects whose share was full a moment ago).
                                plan();
                                return;
                            }
                            store.nextDue(db, DispatchStore.saturated(inFlightByProject, share)).subscribe().with(next -> {
                                double maxSleep = config.maxSleep().toMillis() / 1000.0;
                                double wakeAt = next.nextDue() == null ? next.now() + maxSleep
                                        : Math.min(next.nextDue(), next.now() + maxSleep);
                                sleep((long) Math.ceil((wakeAt - next.now()) * 1000));
                                plannedFor = wakeAt;
                                endPlanning();
                            }, this::pauseAfter);
                        } catch (RuntimeException e) {
                            pauseAfter(e);
                        }
                    }, this::pauseAfter);
        }

        private void pauseAfter(Throwable failure) {
            LOG.warnf("The dispatcher could not reach %s, retrying in %d ms: %s", describe(), FAILURE_PAUSE_MILLIS,
                    failure.toString());
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
            long bounded = Math.max(MIN_SLEEP_MILLIS, Math.min(millis, config.maxSleep().toMillis()));
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
                double dueAt = payload == null || payload.isEmpty() ? Double.NEGATIVE_INFINITY : Double.parseDouble(payload);
                if (dueAt < plannedFor) {
                    wake();
                }
            } catch (NumberFormatException e) {
                wake();
            }
        }

        /** LISTEN on the push channel over a connection of its own, reconnecting after a loss. */
        private void listen() {
            PgConnectOptions options = new PgConnectOptions(listenOptions);
            options.addProperty("application_name", "pigeon-dispatcher");
            subscriber = PgSubscriber.subscriber(vertx, options);
            subscriber.reconnectPolicy(retries -> FAILURE_PAUSE_MILLIS);
            subscriber.channel(DispatchStore.CHANNEL)
                    .handler(this::notified)
                    // (Re)subscribed: anything pushed while the connection was down is picked up now.
                    .subscribeHandler(this::wake);
            connect();
        }

        private void connect() {
            subscriber.connect().subscribe().with(connected -> {
            }, failure -> {
                LOG.warnf("The dispatcher could not LISTEN for pushes on %s, retrying: %s", describe(), failure.toString());
                if (!stopped) {
                    vertx.setTimer(FAILURE_PAUSE_MILLIS, id -> connect());
                }
            });
        }
    }

    /**
     * Starts the call of a taken group (its slot is already reserved). Whatever fails in it (building the request,
     * the call, storing the outcome) ends in that group's failure or lease expiry, never in the dispatcher.
     */
    private void deliver(Lane lane, DispatchStore.TakenGroup group) {
        inFlightByProject.merge(group.project(), 1, Integer::sum);
        lateness.record((long) (Math.max(0, group.latenessSeconds()) * 1_000_000), TimeUnit.MICROSECONDS);
        Uni.createFrom().deferred(() -> group.empty()
                        ? Uni.createFrom().item(DeliveryClient.Outcome.DELIVERED)
                        : client.call(group))
                .onFailure().recoverWithItem(failure -> {
                    LOG.warnf("Group %d: its call could not be made: %s", group.id(), failure.toString());
                    return DeliveryClient.Outcome.failed("call failed");
                })
                .flatMap(outcome -> Uni.createFrom().deferred(() -> settle(lane.db, group, outcome)))
                .onTermination().invoke(() -> {
                    inFlight.decrementAndGet();
                    inFlightByProject.computeIfPresent(group.project(), (project, calls) -> calls <= 1 ? null : calls - 1);
                    slotFreed(lane);
                })
                .subscribe().with(done -> {
                }, failure -> LOG.warnf("Group %d: the outcome of its call could not be stored (it will be called "
                        + "again when its lease ends): %s", group.id(), failure.toString()));
    }

    private Uni<Void> settle(SqlClient db, DispatchStore.TakenGroup group, DeliveryClient.Outcome outcome) {
        if (outcome.deferred()) {
            deferred.increment();
            return store.defer(db, group, outcome.deferredMillis());
        }
        if (outcome.delivered()) {
            delivered.increment();
            return store.complete(db, group);
        }
        failed.increment();
        Duration age = Duration.ofMillis((long) (group.ageSeconds() * 1000));
        Optional<Duration> retry = outcome.retryable() ? retryAfter(group, age) : Optional.empty();
        if (retry.isPresent()) {
            LOG.debugf("Group %d: call %d failed (%s); next in %s", group.id(), group.attempts(), outcome.error(), retry.get());
            return store.release(db, group, outcome.error(), retry.get().toMillis());
        }
        LOG.infof("Group %d: call %d failed (%s); moved to the dead state", group.id(), group.attempts(), outcome.error());
        buried.increment();
        return store.bury(db, group, outcome.error());
    }

    /** When to call again; a stored policy that cannot be read means no retry (the group goes dead, visibly). */
    private Optional<Duration> retryAfter(DispatchStore.TakenGroup group, Duration age) {
        try {
            return RetrySchedule.next(group.attempts(), age, group.retryPolicyJson(), config);
        } catch (RuntimeException e) {
            LOG.warnf("Group %d: its retry policy cannot be applied: %s", group.id(), e.toString());
            return Optional.empty();
        }
    }
}
