package io.pigeon.dispatch;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.pigeon.observability.MessagingSpans;
import io.pigeon.observability.QueueCounts;
import io.pigeon.pool.PoolClients;
import io.pigeon.storage.DatabaseNotices;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.scheduler.Scheduled;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.sqlclient.SqlClient;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jboss.logging.Logger;

/**
 * Delivers due groups: the seed's Schedule, Get, Complete and Release, on every database that holds them (the
 * configured one and each registered pool: a {@link Lane} per database, found again every few seconds so that a
 * pool registered through another replica is served without a restart). Each lane plans its own database: it takes
 * as many due groups as there is room for calls, then sleeps until the next fire time, or {@code max-sleep} at
 * most. A push due sooner than that wakes the lane of the replica that stored it, in-process ({@link #pushed});
 * when that dispatcher is off or busy, the push is announced to the others through LISTEN/NOTIFY on
 * {@link DispatchStore#CHANNEL} (the seed's push channel). A push due later than {@code max-sleep} needs no signal:
 * every lane re-plans within that time and sees it before it is due. There is no polling beyond that re-planning.
 *
 * <p>The {@link CallSlots} ({@code max-concurrency}) and each project's share of them
 * ({@code max-concurrency-per-project}) are this replica's, over all lanes. No failure of one call, whatever throws
 * while it is built, sent or completed, stops the dispatcher: that call fails (retried with backoff, then dead, by
 * its {@link Settlement}) and planning goes on; a pool that does not answer pauses its own lane only.
 */
@ApplicationScoped
public class Dispatcher {

    private static final Logger LOG = Logger.getLogger(Dispatcher.class);

    private final DispatchStore store;
    private final DeliveryClient client;
    private final MailDelivery mail;
    private final DispatchSettings config;
    private final Vertx vertx;
    private final PoolClients pools;
    private final DatabaseNotices notices;
    private final CallSlots slots;
    private final Settlement settlement;
    private final MessagingSpans spans;

    /** One lane per database that holds groups, by pool name ({@link Lane#HOME} for the configured database). */
    private final Map<String, Lane> lanes = new ConcurrentHashMap<>();
    /** A pass over the pools asked for by a push to a database without a lane is under way. */
    private final AtomicBoolean followingOnDemand = new AtomicBoolean();

    private volatile boolean running;

    private final Timer lateness;

    /** What the lanes hand back: the calls of the groups they took, and the slots they did not fill. */
    private final Lane.Owner owner = new Lane.Owner() {
        @Override
        public void deliver(Lane lane, DispatchStore.TakenGroup group) {
            Dispatcher.this.deliver(lane, group);
        }

        @Override
        public void slotsGivenBack(Lane lane) {
            wakeWaiting(lane);
        }
    };

    public Dispatcher(
            DispatchStore store,
            DeliveryClient client,
            MailDelivery mail,
            DispatchSettings dispatchSettings,
            Vertx vertx,
            MeterRegistry registry,
            PoolClients pools,
            DatabaseNotices notices,
            QueueCounts queues,
            MessagingSpans spans) {
        this.store = store;
        this.spans = spans;
        this.client = client;
        this.mail = mail;
        this.config = dispatchSettings;
        this.vertx = vertx;
        this.pools = pools;
        this.notices = notices;
        this.slots = new CallSlots(this.config.maxConcurrency(), this.config.maxConcurrencyPerProject());
        this.settlement = new Settlement(store, this.config, registry, queues);
        lateness = Timer.builder("pigeon.dispatch.lateness")
                .description("How long after its fire time a group was taken")
                .publishPercentileHistogram()
                .register(registry);
    }

    void start(@Observes StartupEvent started) {
        if (!config.enabled()) {
            LOG.info("The dispatcher is off on this replica (pigeon.dispatch.enabled=false)");
            return;
        }
        running = true;
        followPools()
                .subscribe()
                .with(
                        done -> {},
                        failure -> LOG.warnf(
                                "The dispatcher could not read the registered pools, retrying: %s",
                                failure.toString()));
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
    @Scheduled(
            every = "5s",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP,
            skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    Uni<Void> followPools() {
        if (!running) {
            return Uni.createFrom().voidItem();
        }
        return pools.everyDatabase()
                .invoke(this::follow)
                .onFailure()
                .invoke(failure -> LOG.warnf(
                        "The dispatcher could not read the registered pools, will retry: %s", failure.toString()))
                .onFailure()
                .recoverWithNull()
                .replaceWithVoid();
    }

    /** One lane per database of {@code databases}, each on its current client; synchronized: passes may race. */
    private synchronized void follow(List<PoolClients.Named> databases) {
        Set<String> current = new HashSet<>();
        for (PoolClients.Named database : databases) {
            String name = database.home() ? Lane.HOME : database.name();
            current.add(name);
            Lane known = lanes.get(name);
            if (known != null && known.serves(database.client())) {
                continue;
            }
            Lane lane = new Lane(name, database.client(), notices, vertx, store, config, slots, owner);
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
        return running && slots.callsBelowBound();
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
                followPools()
                        .onTermination()
                        .invoke(() -> followingOnDemand.set(false))
                        .subscribe()
                        .with(done -> {});
            }
        } else {
            lane.pushed(dueAt);
        }
    }

    /** Re-plans the lane of {@code db} as soon as possible: something there may be due sooner than planned. */
    public void wake(SqlClient db) {
        pushed(db, Double.NEGATIVE_INFINITY);
    }

    private Lane laneOf(SqlClient db) {
        for (Lane lane : lanes.values()) {
            if (lane.serves(db)) {
                return lane;
            }
        }
        return null;
    }

    /** A slot has come free: the lane of the call that ended, and the lanes that found none free, look again. */
    private void slotFreed(Lane finished) {
        finished.wake();
        wakeWaiting(finished);
    }

    /** Wakes the lanes but {@code except} that wait for a slot, and those planning now. */
    private void wakeWaiting(Lane except) {
        lanes.values().forEach(lane -> {
            if (lane != except) {
                lane.slotFreed();
            }
        });
    }

    /**
     * Starts the call of a taken group (its slot is already reserved). Whatever fails in it (building the request,
     * the call, storing the outcome) ends in that group's failure or lease expiry, never in the dispatcher.
     */
    private void deliver(Lane lane, DispatchStore.TakenGroup group) {
        Uni<Void> call = slots.fill(group.project(), callAndSettle(lane.db(), group), () -> slotFreed(lane));
        lateness.record((long) (Math.max(0, group.latenessSeconds()) * 1_000_000), TimeUnit.MICROSECONDS);
        call.subscribe()
                .with(
                        done -> {},
                        failure -> LOG.warnf(
                                "Group %d: the outcome of its call could not be stored (it will be called "
                                        + "again when its lease ends): %s",
                                group.id(), failure.toString()));
    }

    /**
     * The call of {@code group}, taken from {@code db}, then its outcome stored; a call that cannot be made failed. A
     * group whose target is a {@code mailto:} subscriber is sent as a mail, on the same terms.
     */
    private Uni<Void> callAndSettle(SqlClient db, DispatchStore.TakenGroup group) {
        return Uni.createFrom()
                .deferred(() -> group.empty()
                        ? Uni.createFrom().item(DeliveryClient.Outcome.DELIVERED)
                        : spans.delivering(
                                group.project(),
                                group.traceparent(),
                                sent -> ZaqarMail.isMail(group.target())
                                        ? mail.send(group.carrying(sent))
                                        : client.call(group.carrying(sent)),
                                outcome -> outcome.delivered() || outcome.deferred() ? null : outcome.error()))
                .onFailure()
                .recoverWithItem(failure -> {
                    LOG.warnf("Group %d: its call could not be made: %s", group.id(), failure.toString());
                    return DeliveryClient.Outcome.failed("call failed");
                })
                .flatMap(outcome -> Uni.createFrom().deferred(() -> settlement.settle(db, group, outcome)));
    }
}
