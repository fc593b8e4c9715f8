package io.pigeon.subscription;

import io.pigeon.queue.PlacedQueue;
import io.pigeon.quota.Quotas;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.RowSet;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The SQL of socket subscriptions: rows of {@code subscriptions} with a lease ({@code socket_lease_until}, migration
 * V17) that the replica holding the socket renews, and the read-back of the messages posted to their queues.
 */
@ApplicationScoped
public class SocketSubscriptionStore {

    // As SubscriptionStore's create, within the queue's subscription quota ($7, refusal $8), and within the project's
    // quota of live socket subscriptions on this database ($9, refusal $10; counted on the partial index of V17). A
    // live row of this socket for the queue is a duplicate (no row back); an expired or lapsed one is replaced. With
    // the id, the queue's highest message id then: a read-back after a reconnect gives the socket only those above.
    private static final String CREATE =
            """
            INSERT INTO subscriptions AS s (project, source, subscriber, ttl, options, expires_at, socket_lease_until)
            SELECT $1, $2, $3, $4::int, $5::text::json, now() + $4::int * interval '1 second',
                   now() + $6::int * interval '1 second'
            WHERE ((SELECT count(*) FROM subscriptions WHERE project = $1 AND source = $2 AND expires_at > now()) < $7
                   OR pigeon_refuse('403', $8))
              AND ((SELECT count(*) FROM subscriptions
                    WHERE project = $1 AND socket_lease_until > now() AND expires_at > now()) < $9
                   OR pigeon_refuse('403', $10))
            ON CONFLICT (project, source, subscriber) DO UPDATE
            SET ttl = EXCLUDED.ttl, options = EXCLUDED.options, created_at = now(), expires_at = EXCLUDED.expires_at,
                confirmed = false, confirmation_until = NULL, socket_lease_until = EXCLUDED.socket_lease_until
            WHERE s.expires_at <= now() OR s.socket_lease_until <= now()
            RETURNING id, (SELECT COALESCE(max(m.id), 0) FROM queues q JOIN messages m ON m.queue_id = q.id
                           WHERE q.project = $1 AND q.name = $2) AS last_message_id""";

    // The rows still there come back: the others were deleted meanwhile (by id, with their queue, or swept).
    private static final String RENEW =
            """
            UPDATE subscriptions SET socket_lease_until = now() + $2::int * interval '1 second'
            WHERE id = ANY($1::bigint[]) AND socket_lease_until IS NOT NULL
            RETURNING id""";

    // Sent on the socket channel after a read-back: every post read committed before it, so its notice is heard first.
    private static final String MARK = "SELECT pg_notify($1, $2)";

    private static final String FORGET =
            """
            DELETE FROM subscriptions WHERE id = ANY($1::bigint[]) AND socket_lease_until IS NOT NULL""";

    /**
     * The messages posted to queues with sockets, by ids ($1 to $3: one element per message, its queue named by
     * project and stored name, as a pair, so that one project's ids never read another's rows), with the live socket
     * subscribers of each queue (what the replica matches its own sockets against). Each distinct queue is looked up
     * once by its (project, name) key, each message by the primary key (queue_id, id).
     */
    static final String READ_BACK =
            """
            WITH wanted AS (
                SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[]) AS w (project, name, id)),
            queue AS (
                SELECT DISTINCT project, name FROM wanted)
            SELECT q.project, q.name, l.sockets, m.id, m.ttl,
                   floor(extract(epoch FROM now() - m.created_at))::bigint AS age, m.body, m.key_id
            FROM queue q
            CROSS JOIN LATERAL (SELECT id FROM queues WHERE project = q.project AND name = q.name LIMIT 1) k
            CROSS JOIN LATERAL (
                SELECT array_agg(s.subscriber) AS sockets FROM subscriptions s
                WHERE s.project = q.project AND s.source = q.name AND s.socket_lease_until > now()
                  AND s.expires_at > now()) l
            JOIN wanted w ON w.project = q.project AND w.name = q.name
            JOIN messages m ON m.queue_id = k.id AND m.id = w.id
            WHERE l.sockets IS NOT NULL AND m.expires_at > now()
            ORDER BY q.project, q.name, m.id""";

    /**
     * The live messages of one queue ($1, $2) after id $3, in order of id, at most $4, as {@link #READ_BACK} gives
     * them: what was posted while the notices connection was down. The queue by its (project, name) key, the
     * messages by the primary key (queue_id, id) from $3.
     */
    static final String POSTED_AFTER =
            """
            SELECT q.project, q.name, l.sockets, m.id, m.ttl,
                   floor(extract(epoch FROM now() - m.created_at))::bigint AS age, m.body, m.key_id
            FROM queues q
            CROSS JOIN LATERAL (
                SELECT array_agg(s.subscriber) AS sockets FROM subscriptions s
                WHERE s.project = q.project AND s.source = q.name AND s.socket_lease_until > now()
                  AND s.expires_at > now()) l
            JOIN messages m ON m.queue_id = q.id
            WHERE q.project = $1 AND q.name = $2 AND l.sockets IS NOT NULL AND m.id > $3 AND m.expires_at > now()
            ORDER BY m.id
            LIMIT $4""";

    /** A subscription stored: its id, and the highest message id of its queue then (0 when none). */
    public record Created(long id, long lastMessageId) {}

    private final Quotas quotas;

    public SocketSubscriptionStore(Quotas quotas) {
        this.quotas = quotas;
    }

    /**
     * The new subscription's id, or empty when the queue has a live one for this socket already; refused (a quota
     * failure, see {@link Quotas#refusal}) past the queue's or the project's quota.
     */
    public Uni<Optional<Created>> create(
            PlacedQueue queue,
            String subscriber,
            int ttl,
            String optionsJson,
            long leaseSeconds,
            int maxPerProject,
            String perProjectRefusal) {
        return queue.db()
                .preparedQuery(CREATE)
                .execute(Tuple.of(queue.project(), queue.storedName(), subscriber, ttl, optionsJson)
                        .addInteger((int) leaseSeconds)
                        .addInteger(quotas.limits().maxSubscriptionsPerQueue())
                        .addString(quotas.subscriptions())
                        .addInteger(maxPerProject)
                        .addString(perProjectRefusal))
                .map(rows -> rows.size() == 0
                        ? Optional.empty()
                        : Optional.of(new Created(
                                rows.iterator().next().getLong("id"),
                                rows.iterator().next().getLong("last_message_id"))));
    }

    /** Renews the leases of {@code ids} on {@code db}; the ids still there. */
    public Uni<Set<Long>> renew(SqlClient db, List<Long> ids, long leaseSeconds) {
        return db.preparedQuery(RENEW)
                .execute(Tuple.of(ids.toArray(Long[]::new), (int) leaseSeconds))
                .map(rows -> {
                    Set<Long> kept = new HashSet<>();
                    for (Row row : rows) {
                        kept.add(row.getLong(0));
                    }
                    return kept;
                });
    }

    /** Deletes the socket subscriptions {@code ids} of {@code db}. */
    public Uni<Void> forget(SqlClient db, List<Long> ids) {
        return db.preparedQuery(FORGET)
                .execute(Tuple.of((Object) ids.toArray(Long[]::new)))
                .replaceWithVoid();
    }

    /**
     * The live messages among the given ones (each named by its queue's project and stored name), in order of queue
     * and id, each with the live socket subscribers of its queue; a queue without any gives none.
     */
    public Uni<RowSet<Row>> readBack(SqlClient db, String[] projects, String[] names, Long[] ids) {
        return db.preparedQuery(READ_BACK)
                .execute(Tuple.tuple()
                        .addArrayOfString(projects)
                        .addArrayOfString(names)
                        .addArrayOfLong(ids));
    }

    /** The live messages of a queue after id {@code after}, in order of id, at most {@code limit}. */
    public Uni<RowSet<Row>> postedAfter(SqlClient db, String project, String storedName, long after, int limit) {
        return db.preparedQuery(POSTED_AFTER).execute(Tuple.of(project, storedName, after, limit));
    }

    /** Notifies {@code payload} on {@code channel}, after every transaction that committed before. */
    public Uni<Void> mark(SqlClient db, String channel, String payload) {
        return db.preparedQuery(MARK).execute(Tuple.of(channel, payload)).replaceWithVoid();
    }
}
