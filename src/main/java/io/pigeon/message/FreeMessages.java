package io.pigeon.message;

/**
 * The SQL that picks and locks the oldest free messages of a queue, shared by claims and pops, so that
 * both obey the same definition of "free": visible (any delay has passed), not expired, and either
 * unclaimed or held by a claim that has ended, and not yet claimed as often as the queue's dead-letter
 * rule allows.
 */
public final class FreeMessages {

    /** Visible to readers: no delay, or the delay has passed. */
    public static final String VISIBLE = "(m.visible_at IS NULL OR m.visible_at <= now())";

    private FreeMessages() {}

    /**
     * A subquery yielding the ids of up to {@code limit} free messages of queue {@code queueId}, oldest first,
     * locked with {@code FOR UPDATE SKIP LOCKED}. Wrap it in {@code ARRAY(...)} so that it runs exactly once.
     * Each branch reads in the order of its own index (messages_free_ready by id; messages_free_delayed by the
     * end of the delay, from the first and only up to now, so messages delayed into the future cost nothing;
     * messages_claim_deadline by the claim's end), so none needs a sort whatever the table's statistics say; the
     * outer ORDER BY sorts at most three times the limit. Among delayed messages already due, the branch takes those
     * whose delay ended first, so when more than the limit are due a claim may take a younger one before an older.
     * Live claims are in none of these indexes: however many a queue holds, a claim does not step over them.
     *
     * @param queueId   a scalar SQL expression for the queue's id (a parameter or scalar subquery, so that
     *                  the planner can use it as an index key)
     * @param limit     SQL expression for the limit
     * @param maxClaims SQL expression for how many claims a message may have had (NULL: no bound)
     */
    public static String lockOldest(String queueId, String limit, String maxClaims) {
        return oldest(queueId, limit, maxClaims, "FOR UPDATE OF m SKIP LOCKED", "f.id");
    }

    /**
     * {@link #lockOldest} without locking, yielding {@code id} and {@code message_group}: the oldest free messages as
     * a candidate set, for a statement that locks what it picks among them itself (see {@link GroupedMessages}).
     */
    public static String oldest(String queueId, String limit, String maxClaims) {
        return oldest(queueId, limit, maxClaims, "", "f.id, f.message_group")
                .replace("SELECT m.id FROM messages m", "SELECT m.id, m.message_group FROM messages m")
                .replace("SELECT u.id FROM", "SELECT u.id, u.message_group FROM")
                .replace("SELECT d.id FROM", "SELECT d.id, d.message_group FROM")
                .replace("SELECT r.id FROM", "SELECT r.id, r.message_group FROM");
    }

    /** Whether a row {@code m} may be claimed: not expired, visible, and under the dead-letter claim limit. */
    static String claimable(String maxClaims) {
        return "m.expires_at > now() AND " + VISIBLE + " AND (" + maxClaims + " IS NULL OR m.claim_count < " + maxClaims
                + ")";
    }

    private static String oldest(String queueId, String limit, String maxClaims, String lock, String columns) {
        String claimable = claimable(maxClaims);
        return """
                SELECT f.id FROM (
                    SELECT u.id FROM (
                        SELECT m.id FROM messages m
                        WHERE m.queue_id = %1$s AND m.claim_id IS NULL AND m.visible_at IS NULL AND %3$s
                        ORDER BY m.id LIMIT %2$s
                        %4$s) u
                    UNION ALL
                    SELECT d.id FROM (
                        SELECT m.id FROM messages m
                        WHERE m.queue_id = %1$s AND m.claim_id IS NULL AND m.visible_at IS NOT NULL
                          AND m.visible_at <= now() AND %3$s
                        ORDER BY m.visible_at LIMIT %2$s
                        %4$s) d
                    UNION ALL
                    SELECT r.id FROM (
                        SELECT m.id FROM messages m
                        WHERE m.queue_id = %1$s AND m.claim_id IS NOT NULL AND m.claim_expires_at <= now() AND %3$s
                        ORDER BY m.claim_expires_at LIMIT %2$s
                        %4$s) r
                ) f ORDER BY f.id LIMIT %2$s"""
                .formatted(queueId, limit, claimable, lock)
                .replace("SELECT f.id FROM (", "SELECT " + columns + " FROM (");
    }

    /**
     * The claim limit of a queue's dead-letter rule, from its metadata column {@code metadata}: set only
     * when the queue names both {@code _max_claim_count} and {@code _dead_letter_queue}.
     */
    public static final String MAX_CLAIMS_OF_METADATA =
            """
            CASE WHEN metadata->>'_dead_letter_queue' IS NOT NULL
                 THEN (metadata->>'_max_claim_count')::int END""";
}
