package io.pigeon.waiting;

/**
 * How a statement that makes messages claimable tells the replicas that hold requests waiting for them.
 *
 * <p>A replica that holds waiting claims or pops for a queue keeps a lease on the queue's row ({@code wake_until},
 * migration V19, renewed by {@link WakeMarks}). A statement that stores messages in a queue, or frees claimed ones, adds
 * the CTE {@link #cte} and reads it in its final SELECT ({@link #told}): it sends a notice on {@link #CHANNEL} only
 * when the queue's lease is live, so a statement on a queue nobody waits for pays a comparison of a column of the row
 * it reads anyway, never a {@code pg_notify} (which serialises commits). The notice is delivered at commit, so a
 * statement that fails tells nobody.
 *
 * <p>Any statement that frees messages (a release of a whole claim, of some of its messages, a post, a move into a
 * dead-letter queue) may use it the same way; a waiter woken for nothing only costs one empty claim.
 */
public final class QueueReady {

    /**
     * The channel of the notices. Each payload is a JSON object: {@code project}, {@code queue} (the name the queue is
     * stored under) and {@code messages}, how many became claimable (a hint: how many waiters to wake first).
     */
    public static final String CHANNEL = "pigeon_queue_ready";

    private QueueReady() {}

    /**
     * The CTE {@code name} that sends one notice per row of {@code from} (a FROM clause) matching {@code where} whose
     * queue lease {@code wakeUntil} is live and for which {@code messages} (an expression) is over 0: so many
     * messages became claimable; {@code project} and {@code queue} are the expressions of the queue's project and
     * stored name.
     */
    public static String cte(
            String name, String from, String where, String project, String queue, String messages, String wakeUntil) {
        return """
                %1$s AS (
                    SELECT pg_notify('%2$s', json_build_object('project', %3$s::text, 'queue', %4$s::text,
                                                               'messages', %5$s)::text)
                    FROM %6$s
                    WHERE %7$s AND %8$s > now() AND %5$s > 0)"""
                .formatted(name, CHANNEL, project, queue, messages, from, where, wakeUntil);
    }

    /** The number of notices the CTE {@code name} sent, for the statement's final SELECT (else the CTE never runs). */
    public static String told(String name) {
        return "(SELECT count(*) FROM " + name + ")";
    }
}
