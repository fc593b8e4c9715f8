package io.pigeon.scaling;

import java.util.Arrays;
import java.util.Optional;

/** Which count of a queue an autoscaler scales on. */
public enum DepthMetric {
    /**
     * The messages waiting for a consumer: live and held by no live claim. Consumers that hold claims on every message
     * make it 0, so a consumer working through a long claim may be scaled away.
     */
    FREE("free"),
    /** Every live message, free or claimed: consumers stay while any message is held, as SQS counts in-flight ones. */
    TOTAL("total");

    private final String key;

    DepthMetric(String key) {
        this.key = key;
    }

    /** The name a caller gives it. */
    public String key() {
        return key;
    }

    /** The count of {@code depth} this metric reads. */
    public long of(QueueDepth depth) {
        return this == FREE ? depth.free() : depth.total();
    }

    /** The metric a caller names; empty for any other name. */
    public static Optional<DepthMetric> named(String key) {
        return Arrays.stream(values()).filter(metric -> metric.key.equals(key)).findFirst();
    }
}
