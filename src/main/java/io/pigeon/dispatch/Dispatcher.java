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
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import io.pigeon.config.StatementCachePoolCreator;
import io.vertx.mutiny.sqlclient.Pool;
import org.jboss.logging.Logger;

/**
 * Delivers due groups: the seed's Schedule, Get, Complete and Release. One planning pass at a time takes
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
 * <p>One project holds at most {@code max-concurrency-per-project} of this replica's calls. And no failure of
 * one call, whatever throws while it is built, sent or completed, stops the dispatcher: that call fails
 * (retried with backoff, then dead) and planning goes on.
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

    private final DispatchStore store;
    private final DeliveryClient client;
    private final PigeonConfig.Dispatch config;
    private final Vertx vertx;
    private final Pool pool;
    private final StatementCachePoolCreator poolCreator;
    private final long leaseMillis;

    private final AtomicBoolean planning = new AtomicBoolean();
    private final AtomicInteger inFlight = new AtomicInteger();
    /** Calls in flight per project, for the per-project share. */
    private final Map<String, Integer> inFlightByProject = new ConcurrentHashMap<>();
    private volatile boolean wakeRequested;
    /**
     * The database-clock time (unix seconds) the dispatcher will next look at the groups by itself: a push due
     * earlier wakes it, a later one needs nothing. +infinity while planning (any push may have been missed);
     * -infinity while every call slot is busy (a finishing call wakes it).
     */
    private volatile double plannedFor = Double.POSITIVE_INFINITY;
    private volatile boolean running;
    private long timerId = -1;
    private PgSubscriber subscriber;

    private final Counter delivered;
    private final Counter failed;
    private final Counter buried;
    private final Timer lateness;

    public Dispatcher(DispatchStore store, DeliveryClient client, PigeonConfig config,
            Vertx vertx, MeterRegistry registry, Pool pool, StatementCachePoolCreator poolCreator) {
        this.store = store;
        this.client = client;
        this.config = config.dispatch();
        this.vertx = vertx;
        this.pool = pool;
        this.poolCreator = poolCreator;
        this.leaseMillis = leaseFor(this.config).toMillis();
        delivered = Counter.builder("pigeon.dispatch.calls").tag("outcome", "delivered")
                .description("Calls of the delivery engine, by outcome").register(registry);
        failed = Counter.builder("pigeon.dispatch.calls").tag("outcome", "failed")
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
        listen();
        wake();
    }

    void stop(@Observes ShutdownEvent stopping) {
        running = false;
        synchronized (this) {
            if (timerId >= 0) {
                vertx.cancelTimer(timerId);
            }
        }
        if (subscriber != null) {
            subscriber.closeAndForget();
        }
    }

    /**
     * Whether this replica's dispatcher will take a push that is due soon by itself: it runs and has a free
     * call slot. Otherwise a push is announced to the other replicas (NOTIFY costs every committing
     * transaction a global lock, so it is sent only when needed).
     */
    public boolean servesPushes() {
        return running && inFlight.get() < config.maxConcurrency();
    }

    /**
     * A push made a group due at {@code dueAt} (unix seconds, database clock): wakes the dispatcher if that is
     * sooner than it planned to look.
     */
    public void pushed(double dueAt) {
        if (dueAt < plannedFor) {
            wake();
        }
    }

    /** Re-plans as soon as possible: something may have become due sooner than the dispatcher planned. */
    public void wake() {
        if (!running) {
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
        int room = config.maxConcurrency() - inFlight.get();
        if (!running || room <= 0) {
            // A call that finishes wakes the dispatcher again.
            plannedFor = Double.NEGATIVE_INFINITY;
            endPlanning();
            return;
        }
        Map<String, Integer> busy = Map.copyOf(inFlightByProject);
        int share = config.maxConcurrencyPerProject();
        store.takeDue(pool, room, leaseMillis, config.maxItemsPerCall(), config.maxCallBytes(), busy, share)
                .subscribe().with(taken -> {
                    try {
                        taken.forEach(this::deliver);
                        if (!taken.isEmpty()) {
                            // More may be due (of this or of projects whose share was full a moment ago).
                            plan();
                            return;
                        }
                        store.nextDue(pool, DispatchStore.saturated(inFlightByProject, share)).subscribe().with(next -> {
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
        LOG.warnf("The dispatcher could not reach the database, retrying in %d ms: %s", FAILURE_PAUSE_MILLIS, failure.toString());
        sleep(FAILURE_PAUSE_MILLIS);
        endPlanning();
    }

    private void endPlanning() {
        planning.set(false);
        if (wakeRequested && running && planning.compareAndSet(false, true)) {
            plan();
        }
    }

    private synchronized void sleep(long millis) {
        if (!running) {
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

    /**
     * Starts the call of a taken group. Whatever fails in it (building the request, the call, storing the
     * outcome) ends in that group's failure or lease expiry, never in the dispatcher.
     */
    private void deliver(DispatchStore.TakenGroup group) {
        inFlight.incrementAndGet();
        inFlightByProject.merge(group.project(), 1, Integer::sum);
        lateness.record((long) (Math.max(0, group.latenessSeconds()) * 1_000_000), TimeUnit.MICROSECONDS);
        Uni.createFrom().deferred(() -> group.empty()
                        ? Uni.createFrom().item(DeliveryClient.Outcome.DELIVERED)
                        : client.call(group))
                .onFailure().recoverWithItem(failure -> {
                    LOG.warnf("Group %d: its call could not be made: %s", group.id(), failure.toString());
                    return DeliveryClient.Outcome.failed("call failed");
                })
                .flatMap(outcome -> finish(group, outcome))
                .onTermination().invoke(() -> {
                    inFlight.decrementAndGet();
                    inFlightByProject.computeIfPresent(group.project(), (project, calls) -> calls <= 1 ? null : calls - 1);
                    wake();
                })
                .subscribe().with(done -> {
                }, failure -> LOG.warnf("Group %d: the outcome of its call could not be stored (it will be called "
                        + "again when its lease ends): %s", group.id(), failure.toString()));
    }

    private Uni<Void> finish(DispatchStore.TakenGroup group, DeliveryClient.Outcome outcome) {
        return Uni.createFrom().deferred(() -> settle(group, outcome));
    }

    private Uni<Void> settle(DispatchStore.TakenGroup group, DeliveryClient.Outcome outcome) {
        if (outcome.delivered()) {
            delivered.increment();
            return store.complete(pool, group);
        }
        failed.increment();
        Duration age = Duration.ofMillis((long) (group.ageSeconds() * 1000));
        Optional<Duration> retry = outcome.retryable() ? retryAfter(group, age) : Optional.empty();
        if (retry.isPresent()) {
            LOG.debugf("Group %d: call %d failed (%s); next in %s", group.id(), group.attempts(), outcome.error(), retry.get());
            return store.release(pool, group, outcome.error(), retry.get().toMillis());
        }
        LOG.infof("Group %d: call %d failed (%s); moved to the dead state", group.id(), group.attempts(), outcome.error());
        buried.increment();
        return store.bury(pool, group, outcome.error());
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

    /** A notification's payload is the pushed group's due time, or empty for "look now". */
    private void notified(String payload) {
        try {
            pushed(payload == null || payload.isEmpty() ? Double.NEGATIVE_INFINITY : Double.parseDouble(payload));
        } catch (NumberFormatException e) {
            wake();
        }
    }

    /** LISTEN on the push channel over a connection of its own, reconnecting after a loss. */
    private void listen() {
        // Touching the pool creates it (it is created lazily), and with it the options it connects with.
        pool.getDelegate();
        PgConnectOptions options = poolCreator.connectOptions();
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
            LOG.warnf("The dispatcher could not LISTEN for pushes, retrying: %s", failure.toString());
            if (running) {
                vertx.setTimer(FAILURE_PAUSE_MILLIS, id -> connect());
            }
        });
    }
}
