package io.pigeon.subscription;

import io.pigeon.queue.PlacedQueue;
import io.pigeon.quota.Quotas;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.RowSet;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.OffsetDateTime;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
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
    // the id, the queue's highest message id then: a read-back after a reconnect gives the socket only those above;
    // and the row as stored, with its queue's id (0 while the queue has no row: a subscription may come before its
    // queue), for restoring it should an outage let its lease lapse.
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
                           WHERE q.project = $1 AND q.name = $2) AS last_message_id,
                      COALESCE((SELECT id FROM queues WHERE project = $1 AND name = $2), 0) AS queue_id,
                      ttl, options::text AS options, created_at, expires_at""";

    // The rows still there come back, as they are now (a PATCH may have changed ttl and options; the queue may have
    // been made since), each with its queue's id (0: none): the others were deleted meanwhile (by id, with their
    // queue, or swept).
    private static final String RENEW =
            """
            UPDATE subscriptions s SET socket_lease_until = now() + $2::int * interval '1 second'
            WHERE s.id = ANY($1::bigint[]) AND s.socket_lease_until IS NOT NULL
            RETURNING s.id, s.ttl, s.options::text AS options, s.created_at, s.expires_at,
                      COALESCE((SELECT q.id FROM queues q WHERE q.project = s.project AND q.name = s.source), 0)
                          AS queue_id""";

    // Socket subscriptions swept while their replica could not reach the database, stored again as they were: same
    // id ($1), queue ($2 its id, $3 and $4 its key: a queue deleted meanwhile, even if made again since, has another
    // id, so its subscriptions stay deleted; 0 when it had no row then, as a subscription may come before its queue),
    // subscriber, ttl, options, creation and expiry ($5 to $9), with a new lease ($10). One that expired meanwhile, or
    // whose id or subscriber is taken, is not; those stored come back. No quota is asked: each was admitted when it
    // was made and counted until the sweep.
    private static final String RESTORE =
            """
            INSERT INTO subscriptions
                (id, project, source, subscriber, ttl, options, created_at, expires_at, socket_lease_until)
            OVERRIDING SYSTEM VALUE
            SELECT r.id, r.project, r.name, r.subscriber, r.ttl, r.options::jsonb, r.created_at, r.expires_at,
                   now() + $10::int * interval '1 second'
            FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::int[], $7::text[],
                        $8::timestamptz[], $9::timestamptz[])
                 AS r (id, queue_id, project, name, subscriber, ttl, options, created_at, expires_at)
            WHERE r.expires_at > now()
              AND (r.queue_id = 0
                   OR EXISTS (SELECT 1 FROM queues q
                              WHERE q.id = r.queue_id AND q.project = r.project AND q.name = r.name))
            ON CONFLICT DO NOTHING
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

    /** A subscription stored: its id, the highest message id of its queue then (0 when none), and the row. */
    public record Created(long id, long lastMessageId, Stored stored) {}

    /**
     * What a socket subscription's row holds beside its key and lease, with its queue's id (0: the queue had no row):
     * what restoring it stores again.
     */
    public record Stored(
            long queueId, int ttl, String optionsJson, OffsetDateTime createdAt, OffsetDateTime expiresAt) {

        static Stored of(Row row) {
            return new Stored(
                    row.getLong("queue_id"),
                    row.getInteger("ttl"),
                    row.getString("options"),
                    row.getOffsetDateTime("created_at"),
                    row.getOffsetDateTime("expires_at"));
        }
    }

    /** One subscription to restore: its id, its queue's key, its subscriber and its row as last seen. */
    public record Lapsed(long id, String project, String storedName, String subscriber, Stored stored) {}

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
                .map(rows -> {
                    if (rows.size() == 0) {
                        return Optional.empty();
                    }
                    Row row = rows.iterator().next();
                    return Optional.of(new Created(row.getLong("id"), row.getLong("last_message_id"), Stored.of(row)));
                });
    }

    /** Renews the leases of {@code ids} on {@code db}; the rows still there, as they are now, by id. */
    public Uni<Map<Long, Stored>> renew(SqlClient db, List<Long> ids, long leaseSeconds) {
        return db.preparedQuery(RENEW)
                .execute(Tuple.of(ids.toArray(Long[]::new), (int) leaseSeconds))
                .map(rows -> {
                    Map<Long, Stored> kept = new HashMap<>();
                    for (Row row : rows) {
                        kept.put(row.getLong("id"), Stored.of(row));
                    }
                    return kept;
                });
    }

    /**
     * Stores {@code lapsed} again on {@code db}, each with its id, with a lease of {@code leaseSeconds}, where its
     * queue is still the one it was made on and it has not expired; the ids stored.
     */
    public Uni<Set<Long>> restore(SqlClient db, List<Lapsed> lapsed, long leaseSeconds) {
        Tuple params = Tuple.tuple()
                .addArrayOfLong(lapsed.stream().map(Lapsed::id).toArray(Long[]::new))
                .addArrayOfLong(
                        lapsed.stream().map(one -> one.stored().queueId()).toArray(Long[]::new))
                .addArrayOfString(lapsed.stream().map(Lapsed::project).toArray(String[]::new))
                .addArrayOfString(lapsed.stream().map(Lapsed::storedName).toArray(String[]::new))
                .addArrayOfString(lapsed.stream().map(Lapsed::subscriber).toArray(String[]::new))
                .addArrayOfInteger(
                        lapsed.stream().map(one -> one.stored().ttl()).toArray(Integer[]::new))
                .addArrayOfString(
                        lapsed.stream().map(one -> one.stored().optionsJson()).toArray(String[]::new))
                .addArrayOfOffsetDateTime(
                        lapsed.stream().map(one -> one.stored().createdAt()).toArray(OffsetDateTime[]::new))
                .addArrayOfOffsetDateTime(
                        lapsed.stream().map(one -> one.stored().expiresAt()).toArray(OffsetDateTime[]::new))
                .addInteger((int) leaseSeconds);
        return db.preparedQuery(RESTORE).execute(params).map(rows -> {
            Set<Long> restored = new HashSet<>();
            for (Row row : rows) {
                restored.add(row.getLong("id"));
            }
            return restored;
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
