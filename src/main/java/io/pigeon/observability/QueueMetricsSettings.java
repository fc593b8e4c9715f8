package io.pigeon.observability;

import io.pigeon.config.PositiveDuration;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import jakarta.validation.constraints.Min;
import java.time.Duration;

/**
 * Per-queue metrics (/q/metrics/queues): the periodic sample of each queue's messages, the per-queue counters each
 * replica adds to the database, and the bound on one answer.
 *
 * <p>The per-queue metrics: here, below both the counts each replica keeps (QueueCounts) and the samples and
 * answers of io.pigeon.queuemetrics, which reads this package. Its own mapping, so that the feature that reads
 * these keys owns them; the keys are unchanged ({@code pigeon.queue-metrics.*}, env {@code
 * PIGEON_QUEUE_METRICS_*}).
 */
@ConfigMapping(prefix = "pigeon.queue-metrics")
public interface QueueMetricsSettings {

    /**
     * Whether queues are sampled and counted: off, no replica samples, counts or flushes, and /q/metrics/queues
     * answers no series. Set it alike on every replica.
     */
    @WithDefault("true")
    boolean enabled();

    /**
     * How often each database is sampled (by one replica at a time) and each replica adds its counts to it: what
     * /q/metrics/queues serves is exact once a queue has been quiet this long.
     */
    @WithDefault("15s")
    @PositiveDuration
    Duration samplePeriod();

    /**
     * Live messages of one queue that one sample counts, oldest first: up to it the counts are exact; past it they
     * are extrapolated from the oldest ones (as stats do past 10,000), so that a deep queue costs a sample no more.
     */
    @WithDefault("10000")
    @Min(1)
    int exactCountLimit();

    /**
     * Series one answer of /q/metrics/queues holds at most (a queue is counted as 12): queues are served whole, in
     * project and queue order, up to it, and the answer says it was truncated ({@code
     * pigeon_queue_series_truncated 1}).
     */
    @WithDefault("60000")
    @Min(1)
    int maxSeries();

    /** Answers of /q/metrics/queues this replica prepares at once; one more is refused (429). */
    @WithDefault("4")
    @Min(1)
    int maxScrapesInFlight();

    /**
     * Bytes of /q/metrics/queues answers this replica holds until their clients have read them: an answer holds
     * its size from when it is ready until it is written or its connection is gone, and one that would pass this
     * is refused (503), unless it is the only one. Each is written 64 KiB at a time, so a client that does not read
     * pins no more than that of direct memory.
     */
    @WithDefault("33554432")
    @Min(1)
    long maxUnwrittenBytes();

    /**
     * Queues one replica holds counts for between two flushes; counts of further queues in that time are dropped
     * (and counted in {@code pigeon_queue_counts_dropped_total}), so that requests naming ever new queues cannot
     * grow the replica's memory.
     */
    @WithDefault("100000")
    @Min(1)
    int maxCountedQueues();
}
