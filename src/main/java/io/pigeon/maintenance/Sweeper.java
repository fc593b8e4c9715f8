package io.pigeon.maintenance;

import io.pigeon.config.PigeonConfig;
import io.pigeon.observability.QueueMetrics;
import io.quarkus.scheduler.Scheduled;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

/**
 * Deletes expired messages and ends expired claims, in bounded batches. Readers already ignore expired
 * rows; the sweeper only reclaims their space and returns the messages of ended claims to the free set
 * (where the claim's fast index finds them). Every batch locks its rows with {@code SKIP LOCKED}, so any
 * number of replicas may sweep at the same time without waiting on, or undoing, each other.
 */
@ApplicationScoped
public class Sweeper {

    private static final Logger LOG = Logger.getLogger(Sweeper.class);

    private static final String DELETE_EXPIRED_MESSAGES = """
            DELETE FROM messages
            WHERE ctid = ANY(ARRAY(
                SELECT ctid FROM messages WHERE expires_at <= now()
                LIMIT $1 FOR UPDATE SKIP LOCKED))""";

    // Ends expired claims and frees the messages they still hold, unless a newer claim holds them already.
    // Each message is reached by a primary-key probe from the ids its claim recorded ("IS NOT DISTINCT
    // FROM" keeps the planner off the index of all claimed rows, as in ClaimStore).
    private static final String END_EXPIRED_CLAIMS = """
            WITH ended AS (
                DELETE FROM claims
                WHERE ctid = ANY(ARRAY(
                    SELECT ctid FROM claims WHERE expires_at <= now()
                    LIMIT $1 FOR UPDATE SKIP LOCKED))
                RETURNING queue_id, id, message_ids),
            freed AS (
                UPDATE messages m SET claim_id = NULL, claim_expires_at = NULL
                FROM (SELECT queue_id, id AS claim_id, unnest(message_ids) AS message_id FROM ended) e
                WHERE m.queue_id = e.queue_id AND m.id = e.message_id AND m.claim_id IS NOT DISTINCT FROM e.claim_id
                RETURNING m.id)
            SELECT count(*) FROM ended""";

    // Dead-letter queues are created on first need, in the project of the queue that names them.
    private static final String CREATE_DEAD_LETTER_QUEUES = """
            INSERT INTO queues (project, name)
            SELECT DISTINCT q.project, q.metadata->>'_dead_letter_queue'
            FROM claims c JOIN queues q ON q.id = c.queue_id
            WHERE c.expires_at <= now()
              AND q.metadata->>'_dead_letter_queue' IS NOT NULL AND q.metadata->>'_max_claim_count' IS NOT NULL
            ON CONFLICT (project, name) DO NOTHING""";

    // Messages of ended claims that have been claimed as often as their queue's dead-letter rule allows
    // move, atomically (one statement deletes and inserts), to the dead-letter queue, with its TTL when
    // the queue sets _dead_letter_queue_messages_ttl and their own otherwise.
    private static final String MOVE_TO_DEAD_LETTER_QUEUES = """
            WITH candidates AS (
                SELECT m.queue_id, m.id, d.id AS dead_letter_queue_id,
                       COALESCE((q.metadata->>'_dead_letter_queue_messages_ttl')::int, m.ttl) AS dead_letter_ttl
                FROM claims c
                JOIN queues q ON q.id = c.queue_id
                JOIN queues d ON d.project = q.project AND d.name = q.metadata->>'_dead_letter_queue'
                CROSS JOIN LATERAL unnest(c.message_ids) AS held (message_id)
                JOIN messages m ON m.queue_id = c.queue_id AND m.id = held.message_id
                WHERE c.expires_at <= now()
                  AND m.claim_id IS NOT DISTINCT FROM c.id
                  AND m.claim_count >= (q.metadata->>'_max_claim_count')::int
                  AND m.expires_at > now()
                LIMIT $1
                FOR UPDATE OF m SKIP LOCKED),
            moved AS (
                DELETE FROM messages m USING candidates c
                WHERE m.queue_id = c.queue_id AND m.id = c.id
                RETURNING m.id, m.client_id, m.body, c.dead_letter_queue_id, c.dead_letter_ttl)
            INSERT INTO messages (queue_id, client_id, ttl, body, expires_at)
            SELECT dead_letter_queue_id, client_id, dead_letter_ttl, body, now() + dead_letter_ttl * interval '1 second'
            FROM moved
            ORDER BY id""";

    // Expired subscriptions are invisible already; this reclaims their rows.
    private static final String DELETE_EXPIRED_SUBSCRIPTIONS = """
            DELETE FROM subscriptions
            WHERE ctid = ANY(ARRAY(
                SELECT ctid FROM subscriptions WHERE expires_at <= now()
                LIMIT $1 FOR UPDATE SKIP LOCKED))""";

    private final Pool pool;
    private final PigeonConfig.Sweeper config;
    private final QueueMetrics metrics;

    public Sweeper(Pool pool, PigeonConfig config, QueueMetrics metrics) {
        this.pool = pool;
        this.config = config.sweeper();
        this.metrics = metrics;
    }

    /** How much one sweep did. */
    public record Sweep(long messagesDeleted, long claimsEnded, long messagesDeadLettered) {
    }

    @Scheduled(every = "${pigeon.sweeper.interval:5s}", delayed = "5s",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    Uni<Void> scheduledSweep() {
        return sweep()
                .invoke(sweep -> {
                    if (sweep.messagesDeleted() > 0 || sweep.claimsEnded() > 0 || sweep.messagesDeadLettered() > 0) {
                        LOG.debugf("Swept %d expired messages and %d expired claims; dead-lettered %d messages",
                                sweep.messagesDeleted(), sweep.claimsEnded(), sweep.messagesDeadLettered());
                    }
                })
                .onFailure().invoke(e -> LOG.warnf("Sweep failed, will retry: %s", e.toString()))
                .onFailure().recoverWithNull()
                .replaceWithVoid();
    }

    /**
     * One sweep: dead-letter what has been claimed too often (while its ended claim still says which
     * messages it held), then end expired claims, then delete expired messages and subscriptions.
     */
    public Uni<Sweep> sweep() {
        return pool.preparedQuery(CREATE_DEAD_LETTER_QUEUES).execute().replaceWithVoid()
                .flatMap(ignored -> repeat(MOVE_TO_DEAD_LETTER_QUEUES, false, 0, 0))
                .flatMap(deadLettered -> repeat(END_EXPIRED_CLAIMS, true, 0, 0)
                        .flatMap(claims -> repeat(DELETE_EXPIRED_MESSAGES, false, 0, 0)
                                .call(messages -> repeat(DELETE_EXPIRED_SUBSCRIPTIONS, false, 0, 0))
                                .map(messages -> new Sweep(messages, claims, deadLettered))))
                .invoke(sweep -> {
                    metrics.expired(sweep.messagesDeleted());
                    metrics.deadLettered(sweep.messagesDeadLettered());
                });
    }

    /** Runs a batch statement until a batch comes back short or the per-run bound is reached. */
    private Uni<Long> repeat(String sql, boolean countedInRow, long done, int batches) {
        if (batches >= config.maxBatchesPerRun()) {
            return Uni.createFrom().item(done);
        }
        return pool.preparedQuery(sql).execute(Tuple.of(config.batchSize()))
                .map(rows -> countedInRow ? rows.iterator().next().getLong(0) : (long) rows.rowCount())
                .flatMap(count -> count < config.batchSize()
                        ? Uni.createFrom().item(done + count)
                        : repeat(sql, countedInRow, done + count, batches + 1));
    }
}
