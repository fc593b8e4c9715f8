package io.pigeon.scaling;

import io.pigeon.message.QueueStats;
import java.util.Optional;

/**
 * A queue's message counts as an autoscaler reads them, from the queue's statistics ({@link QueueStats}, the counts of
 * {@code GET …/stats}, exact up to 10,000 live messages and estimated beyond): {@code free}, the live messages no live
 * claim holds (delayed ones included), and {@code claimed}, those a live claim holds. A queue that does not exist has
 * none, as in v2 a queue that was never posted to.
 */
public record QueueDepth(long free, long claimed) {

    public static final QueueDepth NONE = new QueueDepth(0, 0);

    /** The depth of a queue's statistics; none when the queue does not exist. */
    public static QueueDepth of(Optional<QueueStats> stats) {
        return stats.map(found -> new QueueDepth(found.free(), found.claimed())).orElse(NONE);
    }

    public long total() {
        return free + claimed;
    }
}
