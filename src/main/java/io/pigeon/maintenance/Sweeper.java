package io.pigeon.maintenance;

import io.pigeon.dispatch.DispatchSettings;
import io.pigeon.encryption.MessageCipher;
import io.pigeon.message.MessageRows;
import io.pigeon.message.UnreadableMessages;
import io.pigeon.observability.QueueMetrics;
import io.pigeon.pool.PoolClients;
import io.pigeon.queue.PlacedQueue;
import io.pigeon.queue.QueueName;
import io.pigeon.redrive.RedriveSettings;
import io.pigeon.storage.QueueRows;
import io.pigeon.waiting.QueueReady;
import io.quarkus.scheduler.Scheduled;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.jboss.logging.Logger;

/**
 * Deletes expired messages and ends expired claims, in bounded batches (and the other rows kept for a time: keys,
 * receive attempt ids, subscriptions, sessions, dead groups, ended redrive tasks). Readers already ignore expired
 * rows; the sweeper only reclaims their space and returns the messages of ended claims to the free set
 * (where the claim's fast index finds them). Every batch locks its rows with {@code SKIP LOCKED}, so any
 * number of replicas may sweep at the same time without waiting on, or undoing, each other. Every database that
 * holds queues is swept: the configured one and each registered pool.
 */
@ApplicationScoped
public class Sweeper {

    private static final Logger LOG = Logger.getLogger(Sweeper.class);

    private static final String DELETE_EXPIRED_MESSAGES =
            """
            DELETE FROM messages
            WHERE ctid = ANY(ARRAY(
                SELECT ctid FROM messages WHERE expires_at <= now()
                LIMIT $1 FOR UPDATE SKIP LOCKED))""";

    // Ends expired claims and, in the same statement, settles every message they still hold (unless a newer
    // claim holds it already): a message claimed as often as its queue's dead-letter rule allows moves to the
    // dead-letter queue (created on first need, in the same project; with _dead_letter_queue_messages_ttl or
    // its own TTL); every other goes back to the free set. One statement, so that a claim can never end
    // between the move and the release and leave a message that is neither claimable nor dead-lettered. A
    // dead-letter queue is created only when this statement's snapshot does not hold it; one created meanwhile by
    // another sweep or a client (committed after the snapshot, so invisible to the lookup in targets) is taken by
    // DO UPDATE, which returns the committed row where DO NOTHING returned none and left the move without a target
    // (seen as a failed sweep when two replicas dead-lettered into a new queue at once). Each
    // message is reached by a primary-key probe from the ids its claim recorded (the LIMIT keeps the planner
    // from turning the probes into a join that scans every message: measured, a sweep under load otherwise
    // read the whole table), then moved or released by its row address (a TID scan). The two sets are
    // disjoint, decided on one snapshot; a row changed meanwhile (claimed again, deleted) no longer matches its
    // address and is left alone, as it should be.
    private static final String END_EXPIRED_CLAIMS =
            """
            WITH ended AS (
                DELETE FROM claims
                WHERE ctid = ANY(ARRAY(
                    SELECT ctid FROM claims WHERE expires_at <= now()
                    LIMIT $1 FOR UPDATE SKIP LOCKED))
                RETURNING queue_id, id, message_ids),
            held AS (
                SELECT e.queue_id, e.id AS claim_id, h.message_id
                FROM ended e CROSS JOIN LATERAL unnest(e.message_ids) AS h (message_id)),
            rules AS (
                SELECT q.id AS queue_id, q.project, q.name, q.metadata->>'_dead_letter_queue' AS dead_letter_queue,
                       (q.metadata->>'_max_claim_count')::int AS max_claims,
                       (q.metadata->>'_dead_letter_queue_messages_ttl')::int AS dead_letter_ttl
                FROM (SELECT DISTINCT queue_id FROM ended) e
                CROSS JOIN LATERAL (SELECT * FROM queues q WHERE q.id = e.queue_id LIMIT 1) q
                WHERE q.metadata->>'_dead_letter_queue' IS NOT NULL AND q.metadata->>'_max_claim_count' IS NOT NULL),
            created AS (
                INSERT INTO queues (project, name)
                SELECT DISTINCT r.project, r.dead_letter_queue FROM rules r
                WHERE NOT EXISTS (SELECT 1 FROM queues d WHERE d.project = r.project AND d.name = r.dead_letter_queue)
                ORDER BY 1, 2
                ON CONFLICT (project, name) DO UPDATE SET name = EXCLUDED.name
                RETURNING id, project, name),
            targets AS (
                SELECT r.queue_id, r.name, r.max_claims, r.dead_letter_ttl, COALESCE(c.id, d.id) AS dead_letter_queue_id
                FROM rules r
                LEFT JOIN created c ON c.project = r.project AND c.name = r.dead_letter_queue
                LEFT JOIN LATERAL (SELECT id FROM queues d WHERE d.project = r.project AND d.name = r.dead_letter_queue
                                   LIMIT 1) d ON true),
            settled AS MATERIALIZED (
                SELECT m.row, t.queue_id IS NOT NULL AND m.claim_count >= t.max_claims AND m.expires_at > now() AS dead
                FROM held h
                CROSS JOIN LATERAL (
                    SELECT m.ctid AS row, m.claim_count, m.expires_at FROM messages m
                    WHERE m.queue_id = h.queue_id AND m.id = h.message_id AND m.claim_id IS NOT DISTINCT FROM h.claim_id
                    LIMIT 1) m
                LEFT JOIN targets t ON t.queue_id = h.queue_id),
            moved AS (
                DELETE FROM messages m
                WHERE m.ctid = ANY(ARRAY(SELECT row FROM settled WHERE dead))
                RETURNING m.queue_id, m.id, m.client_id, m.body, m.key_id, m.ttl, m.sqs_attributes, m.message_group,
                          m.traceparent, m.tracestate),
            -- Each queue's total of messages moved out of it (/q/metrics/queues), in the statement that moves them:
            -- counted exactly once, whatever replica sweeps. Rows are locked in queue order, as every flush locks them.
            dead_letters_counted AS (
                INSERT INTO queue_counters AS c (queue_id, dead_lettered)
                SELECT queue_id, count(*) FROM moved GROUP BY queue_id ORDER BY queue_id
                ON CONFLICT (queue_id) DO UPDATE SET dead_lettered = c.dead_lettered + EXCLUDED.dead_lettered),
            -- A sealed body moves sealed, for the queue it left: it waits invisible until it is sealed for its new
            -- queue (RESEALING). Each records the queue it came from, where a redrive moves it back (migration V21),
            -- and keeps its id, as SQS keeps a dead-lettered message's MessageId (a redrive keeps it too), and its group
            -- (decision 0020: it left its group's order in the queue it came from; in the dead-letter queue it is in it
            -- again, as SQS keeps a dead-lettered message's MessageGroupId), and its trace context (migration V35: a
            -- consumer of the dead-letter queue can still find the trace that produced it).
            dead_lettered AS (
                INSERT INTO messages (id, queue_id, client_id, ttl, body, key_id, expires_at, visible_at,
                                      dead_letter_source, sqs_attributes, message_group, traceparent, tracestate)
                OVERRIDING SYSTEM VALUE
                SELECT m.id, t.dead_letter_queue_id, m.client_id, COALESCE(t.dead_letter_ttl, m.ttl), m.body, m.key_id,
                       now() + COALESCE(t.dead_letter_ttl, m.ttl) * interval '1 second',
                       CASE WHEN m.key_id IS NOT NULL THEN 'infinity'::timestamptz END, t.name, m.sqs_attributes,
                       m.message_group, m.traceparent, m.tracestate
                FROM moved m JOIN targets t ON t.queue_id = m.queue_id
                ORDER BY m.id
                RETURNING id),
            freed AS (
                UPDATE messages m SET claim_id = NULL, claim_expires_at = NULL
                WHERE m.ctid = ANY(ARRAY(SELECT row FROM settled WHERE NOT dead))
                RETURNING m.id)
            SELECT (SELECT count(*) FROM ended) AS claims, (SELECT count(*) FROM dead_lettered) AS dead_lettered""";

    // Sealed messages moved to a dead-letter queue, still sealed for the queue they left (the queue is part of what
    // the seal authenticates): the application opens each and seals it again for the queue it is in, then it is
    // visible. No delay gives 'infinity', and an index holds just these rows (migration V14).
    private static final String RESEALING =
            """
            SELECT m.queue_id, m.id, m.body, m.key_id, m.sqs_attributes, q.project, q.name
            FROM messages m JOIN queues q ON q.id = m.queue_id
            WHERE m.visible_at = 'infinity'
            ORDER BY m.queue_id, m.id
            LIMIT $1""";

    // Another replica may reseal the same row meanwhile: the second update then finds it visible and changes nothing.
    // The messages are claimable from now: claims and pops waiting on their queues are told (see QueueReady), as a
    // post tells them (a redrive moves sealed messages back to their queues this way).
    private static final String RESEALED =
            """
            WITH resealed AS (
                UPDATE messages m SET body = r.body, key_id = r.key_id, sqs_attributes = r.attributes, visible_at = NULL
                FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::text[], $5::text[])
                     AS r (queue_id, id, body, key_id, attributes)
                WHERE m.queue_id = r.queue_id AND m.id = r.id AND m.visible_at = 'infinity'
                RETURNING m.queue_id),
            arrived AS (
                SELECT queue_id, count(*) AS messages FROM resealed GROUP BY queue_id),
            %s
            SELECT %s AS waiters_told"""
                    .formatted(
                            QueueReady.cte(
                                    "waiters_told",
                                    "queues w JOIN arrived a ON a.queue_id = w.id",
                                    "true",
                                    "w.project",
                                    "w.name",
                                    "a.messages",
                                    "w.wake_until"),
                            QueueReady.told("waiters_told"));

    // Messages set aside (unreadable) are kept until they would have expired.
    private static final String DELETE_EXPIRED_SET_ASIDE =
            """
            DELETE FROM messages_set_aside
            WHERE ctid = ANY(ARRAY(
                SELECT ctid FROM messages_set_aside WHERE expires_at <= now()
                LIMIT $1 FOR UPDATE SKIP LOCKED))""";

    // The keys of idempotent posts whose window has ended (they count as forgotten from then already, migration V18).
    private static final String DELETE_EXPIRED_POST_KEYS =
            """
            DELETE FROM post_keys
            WHERE ctid = ANY(ARRAY(
                SELECT ctid FROM post_keys WHERE expires_at <= now()
                LIMIT $1 FOR UPDATE SKIP LOCKED))""";

    // SQS ReceiveRequestAttemptIds past their 5 minutes (they count as forgotten from then already, migration V32).
    private static final String DELETE_EXPIRED_RECEIVE_ATTEMPTS =
            """
            DELETE FROM sqs_receive_attempts
            WHERE ctid = ANY(ARRAY(
                SELECT ctid FROM sqs_receive_attempts WHERE expires_at <= now()
                LIMIT $1 FOR UPDATE SKIP LOCKED))""";

    // The counts of keys whose time has passed (migration V25): no post adds to them any more.
    private static final String DELETE_EXPIRED_POST_KEY_COUNTS =
            """
            DELETE FROM post_key_counts
            WHERE ctid = ANY(ARRAY(
                SELECT ctid FROM post_key_counts WHERE counted_until <= now()
                LIMIT $1 FOR UPDATE SKIP LOCKED))""";

    // Rows written for a queue after its delete (by a post or claim whose statement had read the queue before the
    // delete committed: migration V10) are reclaimed here, once the queue has been gone for longer than any such
    // statement runs; the queue's id is then forgotten.
    private static final String DELETE_ROWS_OF_DROPPED_QUEUES =
            """
            WITH chosen AS MATERIALIZED (
                SELECT queue_id FROM dropped_queues WHERE dropped_at <= now() - interval '5 minutes'
                LIMIT $1 FOR UPDATE SKIP LOCKED),
            %s
            DELETE FROM dropped_queues WHERE queue_id = ANY(ARRAY(SELECT queue_id FROM chosen))"""
                    .formatted(QueueRows.deleteAll("ARRAY(SELECT queue_id FROM chosen)"));

    // Expired subscriptions are invisible already; this reclaims their rows.
    private static final String DELETE_EXPIRED_SUBSCRIPTIONS =
            """
            DELETE FROM subscriptions
            WHERE ctid = ANY(ARRAY(
                SELECT ctid FROM subscriptions WHERE expires_at <= now()
                LIMIT $1 FOR UPDATE SKIP LOCKED))""";

    // Console sign-outs recorded until the session they ended could no longer be used (migration V24).
    private static final String DELETE_FORGOTTEN_ENDED_SESSIONS =
            """
            DELETE FROM console_ended_sessions
            WHERE ctid = ANY(ARRAY(
                SELECT ctid FROM console_ended_sessions WHERE forget_at <= now()
                LIMIT $1 FOR UPDATE SKIP LOCKED))""";

    // Socket subscriptions whose replica stopped renewing their lease (it died, or lost its database for longer than
    // the lease): their sockets are gone, or no longer pushed to. Found on the partial index of V17.
    private static final String DELETE_LAPSED_SOCKET_SUBSCRIPTIONS =
            """
            DELETE FROM subscriptions
            WHERE ctid = ANY(ARRAY(
                SELECT ctid FROM subscriptions WHERE socket_lease_until <= now()
                LIMIT $1 FOR UPDATE SKIP LOCKED))""";

    // Dead groups are kept for inspection (/v3/dead-groups) for pigeon.dispatch.dead-retention ($2 seconds).
    private static final String DELETE_OLD_DEAD_GROUPS =
            """
            DELETE FROM dispatch_groups
            WHERE ctid = ANY(ARRAY(
                SELECT ctid FROM dispatch_groups
                WHERE state = 'dead' AND dead_at < now() - $2 * interval '1 second'
                LIMIT $1 FOR UPDATE SKIP LOCKED))""";

    // Ended redrive tasks are kept for their GET for pigeon.redrive.retention ($2 seconds), found on the partial index
    // of V21; a running task is never swept (its queue's deletion ends it).
    private static final String DELETE_OLD_REDRIVE_TASKS =
            """
            DELETE FROM redrive_tasks
            WHERE ctid = ANY(ARRAY(
                SELECT ctid FROM redrive_tasks
                WHERE state <> 'running' AND finished_at < now() - $2 * interval '1 second'
                LIMIT $1 FOR UPDATE SKIP LOCKED))""";

    // Nothing stays pending for ever: a pending group older than pigeon.dispatch.max-pending-age ($2 seconds since
    // its first push or its requeue) moves to the dead state, with the reason as its last error ($3), unless a
    // call of it is running (its dispatcher settles it). Its items go with it, and go when dead groups do.
    private static final String BURY_OLD_PENDING_GROUPS =
            """
            UPDATE dispatch_groups
            SET state = 'dead', dead_at = now(), last_error = $3, lease_token = NULL, lease_until = NULL,
                next_fire_at = NULL
            WHERE ctid = ANY(ARRAY(
                SELECT ctid FROM dispatch_groups
                WHERE state = 'pending' AND created_at < now() - $2 * interval '1 second'
                  AND (lease_until IS NULL OR lease_until <= now())
                LIMIT $1 FOR UPDATE SKIP LOCKED))""";

    private final SweeperSettings config;
    private final long deadRetentionSeconds;
    private final long redriveRetentionSeconds;
    private final long maxPendingAgeSeconds;
    private final String pendingTooLong;
    private final QueueMetrics metrics;
    private final PoolClients poolClients;
    private final AtomicReference<CompletableFuture<Void>> lastSweepEnded =
            new AtomicReference<>(CompletableFuture.completedFuture(null));

    private final MessageCipher cipher;
    private final UnreadableMessages unreadable;

    public Sweeper(
            SweeperSettings sweeperSettings,
            RedriveSettings redriveSettings,
            DispatchSettings dispatchSettings,
            QueueMetrics metrics,
            PoolClients poolClients,
            MessageCipher cipher,
            UnreadableMessages unreadable) {
        this.poolClients = poolClients;
        this.cipher = cipher;
        this.unreadable = unreadable;
        this.config = sweeperSettings;
        this.deadRetentionSeconds = dispatchSettings.deadRetention().toSeconds();
        this.redriveRetentionSeconds = redriveSettings.retention().toSeconds();
        this.maxPendingAgeSeconds = dispatchSettings.maxPendingAge().toSeconds();
        this.pendingTooLong = "pending longer than " + maxPendingAgeSeconds + " s (pigeon.dispatch.max-pending-age)";
        this.metrics = metrics;
    }

    /** How much one sweep did. */
    public record Sweep(long messagesDeleted, long claimsEnded, long messagesDeadLettered) {}

    @Scheduled(
            every = "${pigeon.sweeper.interval}",
            delayed = "5s",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    Uni<Void> scheduledSweep() {
        return sweep().invoke(sweep -> {
                    if (sweep.messagesDeleted() > 0 || sweep.claimsEnded() > 0 || sweep.messagesDeadLettered() > 0) {
                        LOG.debugf(
                                "Swept %d expired messages and %d expired claims; dead-lettered %d messages",
                                sweep.messagesDeleted(), sweep.claimsEnded(), sweep.messagesDeadLettered());
                    }
                })
                .onFailure()
                .invoke(e -> LOG.warnf("Sweep failed, will retry: %s", e.toString()))
                .onFailure()
                .recoverWithNull()
                .replaceWithVoid();
    }

    /**
     * One sweep: end expired claims (dead-lettering what has been claimed too often, freeing the rest), then
     * delete expired messages and subscriptions (and socket subscriptions whose lease ran out), and rows left behind
     * by deleted queues; bury delivery groups pending for too long and delete dead ones kept long enough, and ended
     * redrive tasks kept long enough.
     */
    public Uni<Sweep> sweep() {
        // One sweep at a time in this process: a sweep started while another runs waits for it, so that when a
        // sweep ends, everything that had expired when it was asked for is swept. Side by side, the later one would
        // skip the rows the other holds (SKIP LOCKED) and could end before they are. Replicas still sweep at once.
        // The sweep runs to its end even if its caller cancels (the next one waits for the work, not the caller),
        // and the caller is handed a stage of its own, whose cancellation reaches neither this sweep nor the one
        // before.
        return Uni.createFrom().deferred(() -> {
            CompletableFuture<Void> ended = new CompletableFuture<>();
            CompletableFuture<Void> previous = lastSweepEnded.getAndSet(ended);
            CompletableFuture<Sweep> work =
                    previous.thenCompose(ignored -> sweepEveryDatabase().subscribeAsCompletionStage());
            work.whenComplete((sweep, failure) -> ended.complete(null));
            return Uni.createFrom().completionStage(work.copy());
        });
    }

    private Uni<Sweep> sweepEveryDatabase() {
        // The configured database, and every registered pool: each holds queues of its own. A pool that fails its
        // sweep is logged and swept again next time; it does not keep the others from being swept.
        return poolClients
                .onEvery(this::sweepOf)
                .map(sweeps -> new Sweep(
                        sweeps.stream().mapToLong(Sweep::messagesDeleted).sum(),
                        sweeps.stream().mapToLong(Sweep::claimsEnded).sum(),
                        sweeps.stream().mapToLong(Sweep::messagesDeadLettered).sum()))
                .invoke(sweep -> {
                    metrics.expired(sweep.messagesDeleted());
                    metrics.deadLettered(sweep.messagesDeadLettered());
                });
    }

    /** The sweep of one database; a pool's failure is logged and counts as nothing swept. */
    private Uni<Sweep> sweepOf(PoolClients.Named database) {
        if (database.home()) {
            return sweep(database.client());
        }
        return sweep(database.client()).onFailure().recoverWithItem(failure -> {
            LOG.warnf("Sweep of %s failed, will retry: %s", database.describe(), failure.toString());
            return new Sweep(0, 0, 0);
        });
    }

    /** One sweep of one database. */
    private Uni<Sweep> sweep(SqlClient db) {
        return endClaims(db, 0, 0, 0).call(claims -> reseal(db, 0)).flatMap(claims -> repeat(
                        db, DELETE_EXPIRED_MESSAGES, 0, 0)
                .call(messages -> repeat(db, DELETE_EXPIRED_SET_ASIDE, 0, 0))
                .call(messages -> repeat(db, DELETE_EXPIRED_POST_KEYS, 0, 0))
                .call(messages -> repeat(db, DELETE_EXPIRED_POST_KEY_COUNTS, 0, 0))
                .call(messages -> repeat(db, DELETE_EXPIRED_RECEIVE_ATTEMPTS, 0, 0))
                .call(messages -> repeat(db, DELETE_EXPIRED_SUBSCRIPTIONS, 0, 0))
                .call(messages -> repeat(db, DELETE_FORGOTTEN_ENDED_SESSIONS, 0, 0))
                .call(messages -> repeat(db, DELETE_LAPSED_SOCKET_SUBSCRIPTIONS, 0, 0))
                .call(messages -> repeat(db, DELETE_ROWS_OF_DROPPED_QUEUES, 0, 0))
                .call(messages -> buryOldPendingGroups(db, 0, 0))
                .call(messages -> repeatPast(db, DELETE_OLD_DEAD_GROUPS, deadRetentionSeconds, 0, 0))
                .call(messages -> repeatPast(db, DELETE_OLD_REDRIVE_TASKS, redriveRetentionSeconds, 0, 0))
                .map(messages -> new Sweep(messages, claims[0], claims[1])));
    }

    /** Ends expired claims batch by batch; the claims ended and the messages dead-lettered. */
    private Uni<long[]> endClaims(SqlClient db, long claims, long deadLettered, int batches) {
        if (batches >= config.maxBatchesPerRun()) {
            return Uni.createFrom().item(new long[] {claims, deadLettered});
        }
        return db.preparedQuery(END_EXPIRED_CLAIMS)
                .execute(Tuple.of(config.batchSize()))
                .flatMap(rows -> {
                    Row row = rows.iterator().next();
                    long ended = row.getLong("claims");
                    long total = claims + ended;
                    long dead = deadLettered + row.getLong("dead_lettered");
                    return ended < config.batchSize()
                            ? Uni.createFrom().item(new long[] {total, dead})
                            : endClaims(db, total, dead, batches + 1);
                });
    }

    /**
     * Seals again, for the dead-letter queue they are in, the sealed messages moved there, batch by batch; one that
     * does not open is set aside (see {@link UnreadableMessages}).
     */
    private Uni<Void> reseal(SqlClient db, int batches) {
        if (batches >= config.maxBatchesPerRun()) {
            return Uni.createFrom().voidItem();
        }
        return db.preparedQuery(RESEALING).execute(Tuple.of(config.batchSize())).flatMap(rows -> {
            if (rows.size() == 0) {
                return Uni.createFrom().voidItem();
            }
            List<Long> queueIds = new ArrayList<>();
            List<Long> ids = new ArrayList<>();
            List<String> bodies = new ArrayList<>();
            List<String> keyIds = new ArrayList<>();
            List<String> attributes = new ArrayList<>();
            Map<Long, List<MessageRows.Unopened>> unopened = new LinkedHashMap<>();
            Map<Long, PlacedQueue> queues = new LinkedHashMap<>();
            for (Row row : rows) {
                long queueId = row.getLong("queue_id");
                String project = row.getString("project");
                String queue = row.getString("name");
                queues.put(queueId, new PlacedQueue(db, project, new QueueName(queue)));
                try {
                    // Opened as sealed for the queue it names (or, sealed before queues were named, for the project).
                    String body = cipher.open(project, row.getString("key_id"), row.getString("body"));
                    MessageCipher.Sealed sealed = cipher.seal(project, queue, body);
                    // SQS attributes are sealed with the body (decision 0019), and sealed again with it.
                    String storedAttributes = row.getString("sqs_attributes");
                    attributes.add(
                            storedAttributes == null
                                    ? null
                                    : cipher.seal(
                                                    project,
                                                    queue,
                                                    cipher.open(project, row.getString("key_id"), storedAttributes))
                                            .text());
                    queueIds.add(queueId);
                    ids.add(row.getLong("id"));
                    bodies.add(sealed.text());
                    keyIds.add(sealed.keyId());
                } catch (MessageCipher.Unreadable e) {
                    unopened.computeIfAbsent(queueId, id -> new ArrayList<>())
                            .add(new MessageRows.Unopened(
                                    row.getLong("id"), row.getString("key_id"), e.getMessage(), row));
                }
            }
            Uni<Void> resealed = ids.isEmpty()
                    ? Uni.createFrom().voidItem()
                    : db.preparedQuery(RESEALED)
                            .execute(Tuple.tuple()
                                    .addArrayOfLong(queueIds.toArray(Long[]::new))
                                    .addArrayOfLong(ids.toArray(Long[]::new))
                                    .addArrayOfString(bodies.toArray(String[]::new))
                                    .addArrayOfString(keyIds.toArray(String[]::new))
                                    .addArrayOfString(attributes.toArray(String[]::new)))
                            .replaceWithVoid();
            for (Map.Entry<Long, List<MessageRows.Unopened>> failed : unopened.entrySet()) {
                PlacedQueue queue = queues.get(failed.getKey());
                resealed = resealed.call(() -> unreadable.setAsideResealing(queue, failed.getKey(), failed.getValue()));
            }
            return resealed.flatMap(
                    done -> rows.size() < config.batchSize() ? Uni.createFrom().voidItem() : reseal(db, batches + 1));
        });
    }

    private Uni<Long> buryOldPendingGroups(SqlClient db, long done, int batches) {
        if (batches >= config.maxBatchesPerRun()) {
            return Uni.createFrom().item(done);
        }
        return db.preparedQuery(BURY_OLD_PENDING_GROUPS)
                .execute(Tuple.of(config.batchSize(), maxPendingAgeSeconds, pendingTooLong))
                .map(rows -> (long) rows.rowCount())
                .flatMap(count -> count < config.batchSize()
                        ? Uni.createFrom().item(done + count)
                        : buryOldPendingGroups(db, done + count, batches + 1));
    }

    /** Runs a batch statement of rows kept for {@code retentionSeconds} ($2) as {@link #repeat} runs one. */
    private Uni<Long> repeatPast(SqlClient db, String sql, long retentionSeconds, long done, int batches) {
        if (batches >= config.maxBatchesPerRun()) {
            return Uni.createFrom().item(done);
        }
        return db.preparedQuery(sql)
                .execute(Tuple.of(config.batchSize(), retentionSeconds))
                .map(rows -> (long) rows.rowCount())
                .flatMap(count -> count < config.batchSize()
                        ? Uni.createFrom().item(done + count)
                        : repeatPast(db, sql, retentionSeconds, done + count, batches + 1));
    }

    /** Runs a batch statement until a batch comes back short or the per-run bound is reached. */
    private Uni<Long> repeat(SqlClient db, String sql, long done, int batches) {
        if (batches >= config.maxBatchesPerRun()) {
            return Uni.createFrom().item(done);
        }
        return db.preparedQuery(sql)
                .execute(Tuple.of(config.batchSize()))
                .map(rows -> (long) rows.rowCount())
                .flatMap(count -> count < config.batchSize()
                        ? Uni.createFrom().item(done + count)
                        : repeat(db, sql, done + count, batches + 1));
    }
}
