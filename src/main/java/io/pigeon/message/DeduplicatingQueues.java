package io.pigeon.message;

import io.pigeon.queue.QueueName;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The queues this replica has seen deduplicate by content ({@code _content_based_deduplication}): a post without keys
 * to one of them is refused by its statement (it must take the keys of its messages' content), so the next posts to
 * it go through the keys at once instead of trying the shared statement first. Only a shortcut: a replica that does
 * not know yet is told by the statement, and one that still lists a queue that stopped deduplicating posts to it
 * through the keys, which stores the same messages.
 */
final class DeduplicatingQueues {

    /** Forgetting costs a refused statement on the next post to each: no need for an LRU. */
    private static final int MAX_REMEMBERED = 10_000;

    private final Set<String> queues = ConcurrentHashMap.newKeySet();

    boolean contains(String project, QueueName queue) {
        return queues.contains(project + '\u0000' + queue.value());
    }

    void add(String project, QueueName queue) {
        if (queues.size() >= MAX_REMEMBERED) {
            queues.clear();
        }
        queues.add(project + '\u0000' + queue.value());
    }
}
