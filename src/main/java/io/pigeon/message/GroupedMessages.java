package io.pigeon.message;

import io.pigeon.queue.Ordering;

/**
 * The SQL that picks the free messages a claim or pop takes on a queue ordered by groups (decision 0020), beside
 * {@link FreeMessages}, which picks them on a queue of {@link Ordering#NONE}. Each expression yields a {@code bigint[]}
 * of ids, evaluated once.
 *
 * <p>{@link Ordering#FIFO}: {@code pigeon_fifo_free} (migration V31, filling a group at a time since V34), which
 * serializes the queue's fifo claims on a transaction-scoped lock and picks on a snapshot taken after it; the caller's
 * statement then locks the rows it is given, waiting for other holders instead of skipping them. (Several fifo claims
 * of one queue are taken together by {@code io.pigeon.claim.FifoClaimStore}.)
 *
 * <p>{@link Ordering#FAIR}: the groups' oldest free messages, found by a skip scan over the groups of the queue's free
 * undelayed rows (index messages_group_ready), with the queue's oldest free messages of any kind (those without a
 * group, the delayed ones now due, those of ended claims: {@link FreeMessages#oldest}); each is given its turn, its
 * rank within its group, and a claim takes them by turn, then by age: the first message of every group before the
 * second of any. They are locked with {@code SKIP LOCKED}, as a claim of a queue of none locks. A message without a
 * group is a group of its own, found among the queue's oldest: it is served in age order, not ahead of the groups'
 * turns (finding it behind a backlog of grouped messages would read the backlog).
 */
public final class GroupedMessages {

    private GroupedMessages() {}

    /**
     * The ids a fifo pop takes (see V31's and V34's {@code pigeon_fifo_free}): a scalar subquery, so that the function runs
     * once per statement (called in a WHERE clause, a volatile function would run once per row).
     */
    public static String fifoFree(String queueId, String limit, String maxClaims) {
        return "(SELECT pigeon_fifo_free(%s, %s, %s))::bigint[]".formatted(queueId, limit, maxClaims);
    }

    /**
     * The ids a fair claim takes, locked (see the class's comment). Concurrent fair claims pick the same turns and skip
     * each other's locked rows: what a claim cannot take by turn it fills with the queue's oldest free messages, as a
     * claim of none would ({@link FreeMessages#lockOldest}, asked only for the number still missing, so that it reads
     * nothing when the turns sufficed), so that a fair claim never answers nothing while free messages are unlocked.
     */
    public static String fairFree(String queueId, String limit, String maxClaims) {
        return """
                ARRAY(
                WITH turns AS (
                SELECT l.id FROM messages l
                WHERE l.queue_id = %1$s
                  AND l.id = ANY(ARRAY(
                    WITH RECURSIVE g (message_group) AS (
                        (SELECT m.message_group FROM messages m
                         WHERE m.queue_id = %1$s AND m.claim_id IS NULL AND m.visible_at IS NULL
                           AND m.message_group IS NOT NULL
                         ORDER BY m.message_group LIMIT 1)
                        UNION ALL
                        SELECT (SELECT m.message_group FROM messages m
                                WHERE m.queue_id = %1$s AND m.claim_id IS NULL AND m.visible_at IS NULL
                                  AND m.message_group > g.message_group
                                ORDER BY m.message_group LIMIT 1)
                        FROM g WHERE g.message_group IS NOT NULL),
                    candidates AS (
                        SELECT h.id, h.message_group FROM g CROSS JOIN LATERAL (
                            SELECT m.id, m.message_group FROM messages m
                            WHERE m.queue_id = %1$s AND m.message_group = g.message_group
                              AND m.claim_id IS NULL AND m.visible_at IS NULL AND %3$s
                            ORDER BY m.id LIMIT %2$s) h
                        UNION
                        (%4$s))
                    SELECT t.id FROM (
                        SELECT c.id, row_number() OVER (
                                   PARTITION BY COALESCE(c.message_group, c.id::text) ORDER BY c.id) AS turn
                        FROM candidates c) t
                    ORDER BY t.turn, t.id
                    LIMIT %2$s))
                  AND (l.claim_id IS NULL OR l.claim_expires_at <= now())
                  AND l.expires_at > now() AND (l.visible_at IS NULL OR l.visible_at <= now())
                FOR UPDATE OF l SKIP LOCKED),
                filled AS (%5$s)
                SELECT id FROM turns
                UNION
                SELECT id FROM filled)"""
                .formatted(
                        queueId,
                        limit,
                        FreeMessages.claimable(maxClaims),
                        FreeMessages.oldest(queueId, limit, maxClaims),
                        FreeMessages.lockOldest(
                                queueId, "(%s - (SELECT count(*) FROM turns))".formatted(limit), maxClaims));
    }

    /** The ids a claim or pop of {@code ordering} takes ({@link FreeMessages#lockOldest} for none). */
    public static String free(Ordering ordering, String queueId, String limit, String maxClaims) {
        return switch (ordering) {
            case NONE -> "ARRAY(" + FreeMessages.lockOldest(queueId, limit, maxClaims) + ")";
            case FIFO -> fifoFree(queueId, limit, maxClaims);
            case FAIR -> fairFree(queueId, limit, maxClaims);
        };
    }

    /**
     * Whether the queue's {@code _ordering}, an SQL text expression ({@code metadata->>'_ordering'}), is
     * {@code ordering}: none when unset.
     */
    public static String orderingIs(String expression, Ordering ordering) {
        return ordering == Ordering.NONE
                ? "COALESCE(%s, 'none') = 'none'".formatted(expression)
                : "%s = '%s'".formatted(expression, ordering.value());
    }
}
