package io.pigeon.observability;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.mutiny.sqlclient.SqlClient;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What this replica counted per queue since its last flush, in memory: messages posted, claimed and deleted, claims
 * that found nothing, and the notification calls of each subscription. A request only adds to a map here (no
 * statement of its own); every sample period the counts are taken ({@link #drain}) and added to the database's totals,
 * so that every replica serves the same totals.
 *
 * <p>Entries are changed only inside {@link ConcurrentHashMap#compute}, and taken with {@link ConcurrentHashMap#remove}:
 * an addition happens wholly before the entry is taken (and is in it) or after (and starts a new one), so no count is
 * lost or taken twice. At most {@code pigeon.queue-metrics.max-counted-queues} queues and as many subscriptions are
 * held between two flushes; counts for further ones are dropped and counted, so that requests naming ever new queues
 * cannot grow the replica's memory.
 */
@ApplicationScoped
public class QueueCounts {

    /** A queue as a request names it: its project and the name it is stored under. */
    public record QueueKey(String project, String queue) {}

    /** A subscription of a project on the database whose delivery engine called it. */
    public record SubscriptionKey(SqlClient database, String project, long subscription) {}

    /** What one queue's requests did: the indexes of {@link #add}'s counts. */
    public static final int POSTED = 0;

    public static final int CLAIMED = 1;
    public static final int DELETED = 2;
    public static final int EMPTY_CLAIMS = 3;
    static final int QUEUE_KINDS = 4;

    /** What one subscription's calls did. */
    public static final int DELIVERED = 0;

    public static final int FAILED = 1;
    static final int CALL_KINDS = 2;

    /** The counts taken by one {@link #drain}. */
    public record Drained(Map<QueueKey, long[]> queues, Map<SubscriptionKey, long[]> subscriptions) {
        public boolean isEmpty() {
            return queues.isEmpty() && subscriptions.isEmpty();
        }
    }

    private final boolean enabled;
    private final int maxKeys;
    private final Map<QueueKey, long[]> queues = new ConcurrentHashMap<>();
    private final Map<SubscriptionKey, long[]> subscriptions = new ConcurrentHashMap<>();
    private final AtomicInteger queueKeys = new AtomicInteger();
    private final AtomicInteger subscriptionKeys = new AtomicInteger();
    private final Counter dropped;

    public QueueCounts(QueueMetricsSettings queueMetricsSettings, MeterRegistry registry) {
        this.enabled = queueMetricsSettings.enabled();
        this.maxKeys = queueMetricsSettings.maxCountedQueues();
        this.dropped = Counter.builder("pigeon.queue.counts.dropped")
                .description("Per-queue counts dropped because more queues than pigeon.queue-metrics.max-counted-queues"
                        + " were counted between two flushes")
                .register(registry);
    }

    public void posted(String project, String queue, long count) {
        add(new QueueKey(project, queue), POSTED, count);
    }

    public void claimed(String project, String queue, long count) {
        add(new QueueKey(project, queue), CLAIMED, count);
    }

    public void deleted(String project, String queue, long count) {
        add(new QueueKey(project, queue), DELETED, count);
    }

    /** A claim request on an existing queue answered with no message. */
    public void emptyClaim(String project, String queue) {
        add(new QueueKey(project, queue), EMPTY_CLAIMS, 1);
    }

    /** A notification call of {@code subscription}, taken from {@code database}, delivered or failed. */
    public void notified(SqlClient database, String project, long subscription, boolean delivered) {
        add(
                subscriptions,
                subscriptionKeys,
                new SubscriptionKey(database, project, subscription),
                delivered ? DELIVERED : FAILED,
                1,
                CALL_KINDS);
    }

    private void add(QueueKey key, int kind, long count) {
        add(queues, queueKeys, key, kind, count, QUEUE_KINDS);
    }

    private <K> void add(Map<K, long[]> counts, AtomicInteger keys, K key, int kind, long count, int kinds) {
        if (!enabled || count <= 0) {
            return;
        }
        counts.compute(key, (ignored, known) -> {
            long[] these = known;
            if (these == null) {
                if (keys.incrementAndGet() > maxKeys) {
                    keys.decrementAndGet();
                    dropped.increment(count);
                    return null;
                }
                these = new long[kinds];
            }
            these[kind] += count;
            return these;
        });
    }

    /** Takes every count held now; what is counted from here on waits for the next drain. */
    public Drained drain() {
        return new Drained(take(queues, queueKeys), take(subscriptions, subscriptionKeys));
    }

    private static <K> Map<K, long[]> take(Map<K, long[]> counts, AtomicInteger keys) {
        List<K> held = new ArrayList<>(counts.keySet());
        Map<K, long[]> taken = new HashMap<>(held.size() * 2);
        for (K key : held) {
            long[] these = counts.remove(key);
            if (these != null) {
                keys.decrementAndGet();
                taken.put(key, these);
            }
        }
        return taken;
    }

    /** Gives back counts a flush could not store, to go with the next one. */
    public void restore(Map<QueueKey, long[]> queueCounts) {
        queueCounts.forEach((key, these) -> {
            for (int kind = 0; kind < these.length; kind++) {
                add(key, kind, these[kind]);
            }
        });
    }

    /** Gives back the subscription counts a flush could not store. */
    public void restoreCalls(Map<SubscriptionKey, long[]> callCounts) {
        callCounts.forEach((key, these) -> {
            for (int kind = 0; kind < these.length; kind++) {
                add(subscriptions, subscriptionKeys, key, kind, these[kind], CALL_KINDS);
            }
        });
    }

    public boolean enabled() {
        return enabled;
    }
}
