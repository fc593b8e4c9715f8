package io.pigeon.waiting;

import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** The SQL of waiting claims and pops: the replicas' marks on queues, and when a queue's next message comes free. */
@ApplicationScoped
public class WaitStore {

    /**
     * A waiter scans at most this many rows of its queue's ended claims for the earliest delay to end (unclaimed
     * delayed rows are read in the order their delays end: the first is enough); a queue holding more such rows
     * and none free (many messages released with a delay) is looked at again every {@value #RECHECK_MILLIS} ms.
     */
    static final int DELAYED_SCAN = 1000;

    static final long RECHECK_MILLIS = 1000;

    // Marks (or marks again) the queues named by $1/$2 with a lease of $3 seconds, locking their rows in one order (of
    // id) so that two replicas renewing the same queues cannot deadlock; a queue that does not exist is not answered.
    // live: the mark was live before, so posts to the queue were telling the replicas already.
    private static final String LEASE =
            """
            WITH w AS (
                SELECT q.id, n.project, n.name, COALESCE(q.wake_until > now(), false) AS live
                FROM unnest($1::text[], $2::text[]) AS n (project, name)
                JOIN queues q ON q.project = n.project AND q.name = n.name
                ORDER BY q.id
                FOR NO KEY UPDATE OF q)
            UPDATE queues q SET wake_until = now() + $3::int * interval '1 second'
            FROM w
            WHERE q.id = w.id
            RETURNING w.project, w.name, w.live""";

    // The queue's default wait, and how long until one of its messages may come free by itself: the earliest end of a
    // live claim (through messages_claim_deadline, first row), of the first delay still to end among unclaimed rows
    // (through messages_free_delayed, first row after now), or of a delay among the $3 rows of ended claims that ended
    // first (messages_claim_deadline: a message released from a claim with a delay is held by an ended claim until the
    // sweeper frees it). NULL: nothing will come free without a post or a release. No row: no such queue.
    private static final String NEXT_FREE =
            """
            SELECT (q.metadata->>'%1$s')::int AS wait_default,
                   ceil(extract(epoch FROM LEAST(c.due, d.due, r.due) - now()) * 1000)::bigint AS due_in_millis,
                   r.scanned
            FROM queues q
            LEFT JOIN LATERAL (
                SELECT m.claim_expires_at AS due FROM messages m
                WHERE m.queue_id = q.id AND m.claim_id IS NOT NULL AND m.claim_expires_at > now()
                ORDER BY m.claim_expires_at LIMIT 1) c ON true
            LEFT JOIN LATERAL (
                SELECT m.visible_at AS due FROM messages m
                WHERE m.queue_id = q.id AND m.claim_id IS NULL AND m.visible_at IS NOT NULL
                  AND m.visible_at > now() AND m.visible_at < 'infinity' AND m.expires_at > now()
                ORDER BY m.visible_at LIMIT 1) d ON true
            CROSS JOIN LATERAL (
                SELECT min(e.visible_at) FILTER (WHERE e.visible_at > now() AND e.visible_at < 'infinity') AS due,
                       count(*) AS scanned
                FROM (SELECT m.visible_at FROM messages m
                      WHERE m.queue_id = q.id AND m.claim_id IS NOT NULL AND m.claim_expires_at <= now()
                        AND m.expires_at > now()
                      ORDER BY m.claim_expires_at LIMIT $3) e) r
            WHERE q.project = $1 AND q.name = $2"""
                    .formatted(QueueWaits.DEFAULT_ATTRIBUTE);

    /** A queue as the lease statement answers: whether its mark was live before. */
    public record Leased(String project, String name, boolean wasLive) {}

    /** Marks the queues (parallel lists of project and stored name) for {@code seconds}; the existing ones answer. */
    public Uni<List<Leased>> lease(SqlClient db, List<String> projects, List<String> names, long seconds) {
        return db.preparedQuery(LEASE)
                .execute(Tuple.of(
                        projects.toArray(String[]::new), names.toArray(String[]::new), (int) Math.min(seconds, 86400)))
                .map(rows -> {
                    List<Leased> leased = new ArrayList<>(rows.size());
                    for (Row row : rows) {
                        leased.add(new Leased(row.getString("project"), row.getString("name"), row.getBoolean("live")));
                    }
                    return leased;
                });
    }

    /**
     * When the queue's next message may come free by itself: its default wait (null: unset) and the milliseconds until
     * then (null: never by itself), with a recheck bound when the scan could not see every delayed row.
     */
    public record NextFree(Integer waitDefault, Long dueInMillis) {}

    /** Empty when the queue does not exist. */
    public Uni<Optional<NextFree>> nextFree(SqlClient db, String project, String name) {
        return db.preparedQuery(NEXT_FREE)
                .execute(Tuple.of(project, name, DELAYED_SCAN))
                .map(rows -> {
                    if (rows.size() == 0) {
                        return Optional.empty();
                    }
                    Row row = rows.iterator().next();
                    Long due = row.getLong("due_in_millis");
                    if (row.getLong("scanned") >= DELAYED_SCAN) {
                        due = due == null ? RECHECK_MILLIS : Math.min(due, RECHECK_MILLIS);
                    }
                    return Optional.of(new NextFree(row.getInteger("wait_default"), due));
                });
    }
}
