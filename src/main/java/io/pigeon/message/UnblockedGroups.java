package io.pigeon.message;

import io.pigeon.queue.Ordering;
import io.pigeon.waiting.QueueReady;

/**
 * The SQL by which a delete tells a "fifo" queue's waiting claims that it may have unblocked groups (decision 0020).
 * On a fifo queue a message held by a live claim, or not yet visible, holds back the later messages of its group; a
 * delete of such a message (its consumer done with it, through either API) may make the next one of its group
 * claimable although no message came free, so the delete statements tell the queue's waiters as a post does
 * ({@link QueueReady}), with the number of groups it touched as the hint of how many to wake.
 *
 * <p>Told whenever a held-back grouped row of a fifo queue is deleted while the queue has waiters, even when another
 * message of its claim still holds the group: two deletes of one claim's last two messages, committing together,
 * would each see the other's row still claimed, and neither would tell anyone. A waiter woken for nothing costs one
 * empty claim; one not woken waits until its claim's timer or the end of its wait. Queues of none and fair are never
 * told by a delete: there a delete frees nothing for anyone.
 */
public final class UnblockedGroups {

    private UnblockedGroups() {}

    /**
     * The columns a {@code DELETE ... RETURNING} of rows {@code alias} adds so that {@link #count} can read them: the
     * row's queue, its group, and whether it held its group back (live, and held by a live claim or not yet visible).
     */
    public static String returned(String alias) {
        return ("%1$s.queue_id, %1$s.message_group, %1$s.message_group IS NOT NULL AND %1$s.expires_at > now()"
                        + " AND ((%1$s.claim_id IS NOT NULL AND %1$s.claim_expires_at > now())"
                        + " OR %1$s.visible_at > now()) AS held_back")
                .formatted(alias);
    }

    /** How many groups of queue {@code queueId} the rows of {@code deleted} (a CTE with {@link #returned}) held back. */
    public static String count(String deleted, String queueId) {
        return "(SELECT count(DISTINCT u.message_group) FROM %s u WHERE u.queue_id = %s AND u.held_back)"
                .formatted(deleted, queueId);
    }

    /**
     * The CTE {@code name} that tells the waiters of each queue of {@code from} ({@link QueueReady#cte}'s arguments)
     * whose stored {@code _ordering} ({@code ordering}, an SQL text expression) is fifo of the groups the rows of
     * {@code deleted} unblocked.
     */
    public static String told(
            String name,
            String from,
            String ordering,
            String project,
            String queue,
            String queueId,
            String deleted,
            String wakeUntil) {
        return QueueReady.cte(
                name,
                from,
                GroupedMessages.orderingIs(ordering, Ordering.FIFO),
                project,
                queue,
                count(deleted, queueId),
                wakeUntil);
    }
}
