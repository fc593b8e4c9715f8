package io.pigeon.claim;

import io.pigeon.queue.Ordering;
import io.pigeon.queue.PlacedQueue;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The orderings of queues as their last claims on this replica found them, so that the claims of a queue ordered by
 * groups go to their own statement at once rather than after an empty try of the coalesced one. Only a hint: every
 * claim statement takes messages only when the queue's stored ordering is its own, and answers the stored one, so a
 * stale entry costs one statement more, never a wrong claim. Queues of none are not kept (absent means none), and the
 * map is cleared when it grows past its bound, costing each ordered queue one extra statement.
 */
final class QueueOrderings {

    /** At most this many ordered queues are remembered. */
    static final int MAX_REMEMBERED = 10_000;

    private final Map<String, Ordering> known = new ConcurrentHashMap<>();

    /** The ordering last found for the queue; none when unknown. */
    Ordering known(PlacedQueue queue) {
        return known.getOrDefault(key(queue), Ordering.NONE);
    }

    /** Remembers the ordering a claim statement found for the queue. */
    void remember(PlacedQueue queue, Ordering ordering) {
        if (ordering == Ordering.NONE) {
            known.remove(key(queue));
            return;
        }
        if (known.size() >= MAX_REMEMBERED) {
            known.clear();
        }
        known.put(key(queue), ordering);
    }

    /** The queue as this replica's memories of queues name it. */
    static String key(PlacedQueue queue) {
        return queue.project() + '/' + queue.storedName();
    }
}
