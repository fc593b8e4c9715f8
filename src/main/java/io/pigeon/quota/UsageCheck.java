package io.pigeon.quota;

import io.pigeon.pool.PoolClients;
import io.pigeon.storage.OneReplicaAtATime;
import io.quarkus.scheduler.Scheduled;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

/**
 * Counts what is too costly to count on every request, every {@code pigeon.quotas.check-interval} and on each
 * database that holds queues: the messages of each queue and the delivery groups of each project, and records
 * in that database's {@code quota_breaches} what is over its limit (posts and pushes then read one key). One replica
 * counts a database at a time ({@link OneReplicaAtATime}); a breach lasts until the next count finds it gone, so a queue may
 * pass its limit by what is posted within one interval. A project's groups, /v3 items and bytes (the sums of its
 * groups' counts; a notification's bytes are its row's, see migration V15) are those it makes Pigeon hold, pending
 * and dead alike: a group that dies moves nothing out of the count, so failing receivers cannot pile up dead groups
 * beyond the limits. They are counted per database (its groups spread over the pools), so with pools its limits
 * apply on each; a project may pass them by what it pushes and posts within one interval. The keys of idempotent posts
 * are not counted here: each post counts its own exactly (migration V25).
 */
@ApplicationScoped
public class UsageCheck {

    private static final Logger LOG = Logger.getLogger(UsageCheck.class);

    private static final String COUNT =
            """
            WITH %s,
            over_messages AS (
                SELECT q.project, 'messages' AS kind, m.queue_id
                FROM (SELECT queue_id FROM messages GROUP BY queue_id HAVING count(*) > $1) m
                JOIN queues q ON q.id = m.queue_id
                WHERE (SELECT held FROM lock)),
            kept AS (
                SELECT project, count(*) AS groups, sum(items) AS items, sum(item_bytes) AS bytes
                FROM dispatch_groups WHERE (SELECT held FROM lock)
                GROUP BY project),
            over_groups AS (
                SELECT p.project, k.kind, 0::bigint AS queue_id
                FROM kept p
                CROSS JOIN LATERAL (VALUES ('groups', p.groups > $2), ('items', p.items > $4),
                                           ('bytes', p.bytes > $5)) AS k (kind, over)
                WHERE k.over),
            found AS (SELECT * FROM over_messages UNION ALL SELECT * FROM over_groups),
            cleared AS (
                DELETE FROM quota_breaches b
                WHERE (SELECT held FROM lock)
                  AND NOT EXISTS (SELECT 1 FROM found f WHERE f.project = b.project AND f.kind = b.kind
                                  AND f.queue_id = b.queue_id)
                RETURNING 1),
            added AS (
                INSERT INTO quota_breaches (project, kind, queue_id)
                SELECT project, kind, queue_id FROM found
                ON CONFLICT DO NOTHING
                RETURNING 1)
            SELECT (SELECT held FROM lock) AS held, (SELECT count(*) FROM found) AS breaches"""
                    .formatted(OneReplicaAtATime.lock("$3"));

    private final PoolClients databases;
    private final Quotas quotas;

    public UsageCheck(PoolClients databases, Quotas quotas) {
        this.databases = databases;
        this.quotas = quotas;
    }

    @Scheduled(
            every = "${pigeon.quotas.check-interval}",
            delayed = "10s",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    Uni<Void> scheduled() {
        return check().onFailure()
                .invoke(e -> LOG.warnf("The quota usage check failed, will retry: %s", e.toString()))
                .onFailure()
                .recoverWithNull()
                .replaceWithVoid();
    }

    /**
     * Counts now, on every database that holds queues (each records its own breaches, which its own posts and pushes
     * read); how many queues and projects are over a limit (-1 when other replicas are counting them all).
     */
    public Uni<Long> check() {
        // A pool that does not answer is logged and left for the next count; the others are counted.
        return databases
                .onEvery(database -> check(database.client())
                        .onFailure()
                        .invoke(e -> LOG.warnf(
                                "The quota usage check of %s failed, will retry: %s",
                                database.describe(), e.toString()))
                        .onFailure()
                        .recoverWithItem(-1L))
                .map(counts -> counts.stream().allMatch(count -> count < 0)
                        ? -1L
                        : counts.stream().mapToLong(count -> Math.max(0, count)).sum());
    }

    private Uni<Long> check(SqlClient db) {
        return db.preparedQuery(COUNT)
                .execute(Tuple.of(
                        quotas.limits().maxMessagesPerQueue(),
                        quotas.limits().maxPendingGroupsPerProject(),
                        OneReplicaAtATime.USAGE_CHECK.key(),
                        quotas.limits().maxPendingItemsPerProject(),
                        quotas.limits().maxPendingBytesPerProject()))
                .map(rows -> {
                    var row = rows.iterator().next();
                    return row.getBoolean("held") ? row.getLong("breaches") : -1L;
                });
    }
}
