package io.pigeon.queuemetrics;

import io.pigeon.observability.QueueCounts;
import io.pigeon.observability.QueueMetricsSettings;
import io.pigeon.pool.PoolClients;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.scheduler.Scheduled;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jboss.logging.Logger;

/**
 * Every {@code pigeon.queue-metrics.sample-period}, on every replica: adds what this replica counted per queue to the
 * queues' totals (one statement per database), then samples every database that is due, one replica at a time per
 * database ({@link io.pigeon.storage.OneReplicaAtATime}: the replica that gets the lock and finds the last sample a
 * period old samples; the others do nothing). What /q/metrics/queues serves is therefore exact once a queue has been
 * quiet for a sample period: every replica has flushed since, and a sample has been taken since.
 */
@ApplicationScoped
public class QueueSampler {

    private static final Logger LOG = Logger.getLogger(QueueSampler.class);

    /** How long a stopping replica waits for its last flush. */
    private static final Duration LAST_FLUSH = Duration.ofSeconds(5);

    private final QueueMetricsSettings config;
    private final QueueCounts counts;
    private final PoolClients databases;
    private final QueueMetricsStore store;
    /**
     * A database is sampled when its last sample is this old: a little under the period, so that the replica whose
     * tick sampled last time finds it due again at its next tick, whatever the jitter of its timer.
     */
    private final long dueAfterMillis;

    public QueueSampler(
            QueueMetricsSettings queueMetricsSettings,
            QueueCounts counts,
            PoolClients databases,
            QueueMetricsStore store) {
        this.config = queueMetricsSettings;
        this.counts = counts;
        this.databases = databases;
        this.store = store;
        this.dueAfterMillis = this.config.samplePeriod().toMillis() * 9 / 10;
    }

    @Scheduled(
            every = "${pigeon.queue-metrics.sample-period}",
            delayed = "1s",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP,
            skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    Uni<Void> tick() {
        if (!config.enabled()) {
            return Uni.createFrom().voidItem();
        }
        return flush().onFailure()
                .invoke(e -> LOG.warnf("Flushing the per-queue counts failed, will retry: %s", e.toString()))
                .onFailure()
                .recoverWithNull()
                .chain(this::sample)
                .onFailure()
                .invoke(e -> LOG.warnf("The queue sample failed, will retry: %s", e.toString()))
                .onFailure()
                .recoverWithNull()
                .replaceWithVoid();
    }

    /** What this replica counted goes to the database before it stops. */
    void lastFlush(@Observes ShutdownEvent stopping) {
        if (!config.enabled()) {
            return;
        }
        try {
            flush().await().atMost(LAST_FLUSH);
        } catch (RuntimeException e) {
            LOG.warnf("The last flush of the per-queue counts failed; they are lost: %s", e.toString());
        }
    }

    /** Samples every database that is due and whose lock this replica gets; how many queues it sampled. */
    public Uni<Long> sample() {
        return databases
                .onEvery(database -> store.sample(database.client(), dueAfterMillis, config.exactCountLimit())
                        // The replica that sampled records the console's flow history too, once per period.
                        .call(sampled -> sampled.sampled()
                                ? store.recordHistory(database.client())
                                : Uni.createFrom().voidItem())
                        .map(sampled -> sampled.sampled() ? sampled.queues() : 0L)
                        .onFailure()
                        .invoke(e -> LOG.warnf(
                                "The queue sample of %s failed, will retry: %s", database.describe(), e.toString()))
                        .onFailure()
                        .recoverWithItem(0L))
                .map(sampled -> sampled.stream().mapToLong(Long::longValue).sum());
    }

    /**
     * Adds what this replica counted to the totals of every database. The counts of a queue go to every database (a
     * queue lives on one: the others find no such queue and leave them); a subscription's go to the database whose
     * delivery engine made the calls. When a database fails, what it did not take is kept for the next flush: the
     * counts of every queue no database took (its database may be the one that failed), and its subscriptions'.
     */
    public Uni<Void> flush() {
        QueueCounts.Drained drained = counts.drain();
        if (drained.isEmpty()) {
            return Uni.createFrom().voidItem();
        }
        List<QueueCounts.QueueKey> keys = new ArrayList<>(drained.queues().keySet());
        List<QueueMetricsStore.QueueDeltas> queueDeltas = new ArrayList<>(keys.size());
        for (QueueCounts.QueueKey key : keys) {
            long[] these = drained.queues().get(key);
            queueDeltas.add(new QueueMetricsStore.QueueDeltas(
                    key.project(),
                    key.queue(),
                    these[QueueCounts.POSTED],
                    these[QueueCounts.CLAIMED],
                    these[QueueCounts.DELETED],
                    these[QueueCounts.EMPTY_CLAIMS]));
        }
        Map<SqlClient, Map<QueueCounts.SubscriptionKey, long[]>> callsByDatabase = new IdentityHashMap<>();
        drained.subscriptions().forEach((key, these) -> callsByDatabase
                .computeIfAbsent(key.database(), database -> new HashMap<>())
                .put(key, these));
        return databases
                .everyDatabase()
                .onFailure()
                .invoke(e -> {
                    counts.restore(drained.queues());
                    counts.restoreCalls(drained.subscriptions());
                })
                .chain(every -> Uni.join()
                        .all(every.stream()
                                .map(database -> flushOne(
                                        database,
                                        queueDeltas,
                                        callsByDatabase.getOrDefault(database.client(), Map.of())))
                                .toList())
                        .andFailFast())
                .invoke(outcomes -> {
                    if (outcomes.stream().noneMatch(Optional::isEmpty)) {
                        return;
                    }
                    Set<Integer> taken = new HashSet<>();
                    outcomes.forEach(outcome -> outcome.ifPresent(taken::addAll));
                    Map<QueueCounts.QueueKey, long[]> left = new HashMap<>();
                    for (int i = 0; i < keys.size(); i++) {
                        if (!taken.contains(i)) {
                            left.put(keys.get(i), drained.queues().get(keys.get(i)));
                        }
                    }
                    counts.restore(left);
                })
                .replaceWithVoid();
    }

    /** The flush of one database: the indexes of the queue counts it took; empty when it failed. */
    private Uni<Optional<List<Integer>>> flushOne(
            PoolClients.Named database,
            List<QueueMetricsStore.QueueDeltas> queueDeltas,
            Map<QueueCounts.SubscriptionKey, long[]> calls) {
        List<QueueMetricsStore.CallDeltas> callDeltas = new ArrayList<>(calls.size());
        calls.forEach((key, these) -> callDeltas.add(new QueueMetricsStore.CallDeltas(
                key.project(), key.subscription(), these[QueueCounts.DELIVERED], these[QueueCounts.FAILED])));
        if (queueDeltas.isEmpty() && callDeltas.isEmpty()) {
            return Uni.createFrom().item(Optional.of(List.of()));
        }
        return store.flush(database.client(), queueDeltas, callDeltas)
                .map(Optional::of)
                .onFailure()
                .recoverWithItem(e -> {
                    LOG.warnf(
                            "Flushing the per-queue counts to %s failed, will retry: %s",
                            database.describe(), e.toString());
                    counts.restoreCalls(calls);
                    return Optional.empty();
                });
    }
}
