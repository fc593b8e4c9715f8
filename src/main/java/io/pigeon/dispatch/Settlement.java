package io.pigeon.dispatch;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.pigeon.observability.QueueCounts;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;
import java.time.Duration;
import java.util.Optional;
import org.jboss.logging.Logger;

/**
 * What a call's outcome does to its group, and the count of each outcome: delivered, the group's items are removed
 * (complete); put off by its target's rate, it is due again later with no attempt spent (defer); failed, it is
 * called again after its {@link RetrySchedule} (release), or goes to the dead state when that schedule is over, the
 * failure cannot be retried, or the group's stored policy cannot be read (bury).
 */
final class Settlement {

    /** The dispatcher's category: one logger to turn up for the whole delivery engine. */
    private static final Logger LOG = Logger.getLogger(Dispatcher.class);

    private final DispatchStore store;
    private final DispatchSettings config;
    private final QueueCounts queues;

    private final Counter delivered;
    private final Counter failed;
    private final Counter buried;
    private final Counter deferred;

    Settlement(DispatchStore store, DispatchSettings config, MeterRegistry registry, QueueCounts queues) {
        this.store = store;
        this.config = config;
        this.queues = queues;
        delivered = Counter.builder("pigeon.dispatch.calls")
                .tag("outcome", "delivered")
                .description("Calls of the delivery engine, by outcome")
                .register(registry);
        failed = Counter.builder("pigeon.dispatch.calls")
                .tag("outcome", "failed")
                .description("Calls of the delivery engine, by outcome")
                .register(registry);
        deferred = Counter.builder("pigeon.dispatch.calls")
                .tag("outcome", "deferred")
                .description("Calls of the delivery engine, by outcome")
                .register(registry);
        buried = Counter.builder("pigeon.dispatch.dead")
                .description("Groups moved to the dead state")
                .register(registry);
    }

    /** Stores {@code outcome} of the call of {@code group}, taken from {@code db}. */
    Uni<Void> settle(SqlClient db, DispatchStore.TakenGroup group, DeliveryClient.Outcome outcome) {
        if (outcome.deferred()) {
            deferred.increment();
            return store.defer(db, group, outcome.deferredMillis());
        }
        if (outcome.delivered()) {
            delivered.increment();
            countForTheQueue(db, group, true);
            return store.complete(db, group).call(() -> recordForSubscription(db, group, true, null));
        }
        failed.increment();
        countForTheQueue(db, group, false);
        return afterFailure(db, group, outcome).call(() -> recordForSubscription(db, group, false, outcome.error()));
    }

    private Uni<Void> afterFailure(SqlClient db, DispatchStore.TakenGroup group, DeliveryClient.Outcome outcome) {
        Duration age = Duration.ofMillis((long) (group.ageSeconds() * 1000));
        Optional<Duration> retry = outcome.retryable() ? retryAfter(group, age) : Optional.empty();
        if (retry.isPresent()) {
            LOG.debugf(
                    "Group %d: call %d failed (%s); next in %s",
                    group.id(), group.attempts(), outcome.error(), retry.get());
            return store.release(db, group, outcome.error(), retry.get().toMillis());
        }
        LOG.infof(
                "Group %d: call %d failed (%s); moved to the dead state",
                group.id(), group.attempts(), outcome.error());
        buried.increment();
        return store.bury(db, group, outcome.error());
    }

    /**
     * A notification's outcome on its subscription's row (the console's delivery state). It is for people to read: a
     * failure to write it is logged and never changes what happens to the group.
     */
    private Uni<Void> recordForSubscription(
            SqlClient db, DispatchStore.TakenGroup group, boolean delivered, String error) {
        return store.recordForSubscription(db, group, delivered, error)
                .onFailure()
                .recoverWithItem(failure -> {
                    LOG.debugf(
                            "Group %d: its subscription's delivery state was not recorded: %s",
                            group.id(), failure.toString());
                    return null;
                });
    }

    /** A subscription's notification call counts for the subscription's queue too (/q/metrics/queues). */
    private void countForTheQueue(SqlClient db, DispatchStore.TakenGroup group, boolean delivered) {
        if (group.subscription() != null) {
            queues.notified(db, group.project(), group.subscription(), delivered);
        }
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
