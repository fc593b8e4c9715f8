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

    /** A queue whose next free time could not be read is looked at again after this many ms. */
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
    // live claim of the queue (claims_queue_deadline, first row), or of a delay (messages_delayed, the first row whose
    // delay has not ended and that has not expired; a message released from a claim with a delay is delayed too).
    // NULL: nothing will come free without a post or a release. No row: no such queue. A claim that ends with none of
    // its messages left, or a delay of a message still held, wakes the waiters for nothing: they read this again.
    private static final String NEXT_FREE =
            """
            SELECT (q.metadata->>'%1$s')::int AS wait_default,
                   ceil(extract(epoch FROM LEAST(c.due, d.due) - now()) * 1000)::bigint AS due_in_millis
            FROM queues q
            LEFT JOIN LATERAL (
                SELECT c.expires_at AS due FROM claims c
                WHERE c.queue_id = q.id AND c.expires_at > now()
                ORDER BY c.expires_at LIMIT 1) c ON true
            LEFT JOIN LATERAL (
                SELECT m.visible_at AS due FROM messages m
                WHERE m.queue_id = q.id AND m.visible_at IS NOT NULL AND m.visible_at > now()
                  AND m.visible_at < 'infinity' AND m.expires_at > now()
                ORDER BY m.visible_at LIMIT 1) d ON true
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
     * then (null: never by itself).
     */
    public record NextFree(Integer waitDefault, Long dueInMillis) {}

    /** Empty when the queue does not exist. */
    public Uni<Optional<NextFree>> nextFree(SqlClient db, String project, String name) {
        return db.preparedQuery(NEXT_FREE).execute(Tuple.of(project, name)).map(rows -> {
            if (rows.size() == 0) {
                return Optional.empty();
            }
            Row row = rows.iterator().next();
            return Optional.of(new NextFree(row.getInteger("wait_default"), row.getLong("due_in_millis")));
        });
    }
}
