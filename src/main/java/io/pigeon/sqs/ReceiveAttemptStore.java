package io.pigeon.sqs;

import io.pigeon.claim.ClaimService;
import io.pigeon.encryption.MessageCipher;
import io.pigeon.message.Message;
import io.pigeon.message.MessageRows;
import io.pigeon.queue.PlacedQueue;
import io.pigeon.storage.DatabaseFailures;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;
import java.util.UUID;

/**
 * The SQL of SQS's {@code ReceiveRequestAttemptId} (migration V32): replaying a remembered receive, and remembering
 * one. Both name the queue by project and name, as every store's statements do, and reach the messages through the
 * queue's id.
 */
@ApplicationScoped
public class ReceiveAttemptStore {

    /** How long an attempt id can be retried after the receive that made it: SQS's 5 minutes. */
    static final int REMEMBERED_SECONDS = 300;

    // The receive the attempt id $3 made on the queue, replayed when that receive still holds every message it
    // answered as it left them (the same claim and receive count, and the deadline it set still ahead; a visibility
    // change, a release or a delete since makes it spent): each message's visibility is set again to $4 seconds from
    // now, as SQS resets it for a retry, its life extended to cover it up to max-message-ttl ($5), its claim row and
    // the remembered deadline moved with it. The attempt row is locked, so retries of one id run one after another.
    // One row per message replayed (or one with a null id when none is): whether the queue exists, whether the id is
    // remembered, the claim replayed, and, for an id not remembered, whether the project already holds $6 (the bound)
    // live attempt ids. The deadlines are compared after the rows are locked, on the locked (newest) rows: a retry
    // that waited for the attempt's lock while another retry moved them reads the attempt's new deadline, and the
    // statement's snapshot still holds the old one of each message, so compared in the locking scan they never matched
    // and a live receive answered spent.
    static final String REPLAY =
            """
            WITH q AS (SELECT id FROM queues WHERE project = $1 AND name = $2),
            attempt AS (
                SELECT a.queue_id, a.attempt_id, a.claim_id, a.message_ids, a.receive_counts, a.visible_until
                FROM sqs_receive_attempts a
                WHERE a.queue_id = (SELECT id FROM q) AND a.attempt_id = $3 AND a.expires_at > now()
                FOR UPDATE),
            held AS MATERIALIZED (
                SELECT m.id, m.claim_expires_at, m.expires_at
                FROM attempt a
                CROSS JOIN LATERAL unnest(a.message_ids, a.receive_counts) AS r (id, receive_count)
                JOIN messages m ON m.queue_id = a.queue_id AND m.id = r.id
                WHERE m.claim_id = a.claim_id AND m.claim_count = r.receive_count
                FOR UPDATE OF m),
            replayable AS (
                SELECT a.* FROM attempt a
                WHERE (SELECT count(*) FROM held h
                       WHERE h.claim_expires_at = a.visible_until AND h.claim_expires_at > now()
                         AND h.expires_at > now()) = cardinality(a.message_ids)),
            renewed AS (
                UPDATE messages m
                SET claim_expires_at = now() + $4 * interval '1 second',
                    ttl = GREATEST(m.ttl, LEAST(ceil(extract(epoch FROM now() - m.created_at))::int + $4, $5)),
                    expires_at = m.created_at
                        + GREATEST(m.ttl, LEAST(ceil(extract(epoch FROM now() - m.created_at))::int + $4, $5))
                          * interval '1 second'
                FROM replayable r
                WHERE m.queue_id = r.queue_id AND m.id = ANY(r.message_ids)
                RETURNING m.id, m.ttl, m.created_at, m.body, m.key_id, m.claim_count, m.message_group, m.traceparent,
                          m.tracestate),
            claim_renewed AS (
                UPDATE claims c SET expires_at = GREATEST(c.expires_at, now() + $4 * interval '1 second')
                FROM replayable r
                WHERE c.queue_id = r.queue_id AND c.id = r.claim_id
                RETURNING c.id),
            remembered AS (
                UPDATE sqs_receive_attempts a SET visible_until = now() + $4 * interval '1 second'
                FROM replayable r
                WHERE a.queue_id = r.queue_id AND a.attempt_id = r.attempt_id
                RETURNING a.attempt_id)
            SELECT EXISTS (SELECT 1 FROM q) AS queue_found, EXISTS (SELECT 1 FROM attempt) AS remembered,
                   (SELECT claim_id FROM replayable) AS claim_id,
                   CASE WHEN EXISTS (SELECT 1 FROM attempt) THEN false
                        ELSE (SELECT count(*) FROM (SELECT 1 FROM sqs_receive_attempts b
                                                    WHERE b.project = $1 AND b.expires_at > now() LIMIT $6) b) >= $6
                   END AS at_bound,
                   r.id, r.ttl, floor(extract(epoch FROM now() - r.created_at))::bigint AS age, r.body, r.key_id,
                   r.claim_count, r.message_group, r.traceparent, r.tracestate
            FROM (SELECT 1) one LEFT JOIN renewed r ON true
            ORDER BY r.id""";

    // Lets one receive of a project at a time remember an attempt id on this database (REMEMBER runs after it in the
    // same transaction, so its count sees every id remembered before it): concurrent receives with new ids each
    // counted the others' rows as absent, and the project held more than its bound.
    static final String LOCK_PROJECT =
            "SELECT pg_advisory_xact_lock(hashtextextended('pigeon.sqs-receive-attempts:' || $1, 0))";

    // Remembers what the receive of claim $4 answered under the attempt id $3 (the messages $5 with their receive
    // counts $6, the deadline the claim set), for REMEMBERED_SECONDS; an id whose time has passed is taken over, a
    // live one is kept (two receives sent at once with one new id: the first remembered answers its retries). Nothing
    // is remembered while the project holds $7 (the bound) live attempt ids, unless this id is one of them: the
    // answer, room, says whether there was room (false: the receive must give its messages back and be refused).
    static final String REMEMBER =
            """
            WITH q AS (SELECT id FROM queues WHERE project = $1 AND name = $2),
            room AS (
                SELECT EXISTS (SELECT 1 FROM sqs_receive_attempts l
                               WHERE l.queue_id = (SELECT id FROM q) AND l.attempt_id = $3 AND l.expires_at > now())
                       OR (SELECT count(*) FROM (SELECT 1 FROM sqs_receive_attempts b
                                                 WHERE b.project = $1 AND b.expires_at > now() LIMIT $7) b) < $7
                       AS free),
            stored AS (
                INSERT INTO sqs_receive_attempts AS a
                    (queue_id, attempt_id, project, claim_id, message_ids, receive_counts, visible_until, expires_at)
                SELECT q.id, $3, $1, $4, $5, $6,
                       COALESCE((SELECT min(m.claim_expires_at) FROM messages m
                                 WHERE m.queue_id = q.id AND m.id = ANY($5) AND m.claim_id = $4), '-infinity'),
                       now() + $8 * interval '1 second'
                FROM q
                WHERE (SELECT free FROM room)
                ON CONFLICT (queue_id, attempt_id) DO UPDATE
                SET claim_id = EXCLUDED.claim_id, message_ids = EXCLUDED.message_ids,
                    receive_counts = EXCLUDED.receive_counts, visible_until = EXCLUDED.visible_until,
                    expires_at = EXCLUDED.expires_at
                WHERE a.expires_at <= now()
                RETURNING 1)
            SELECT (SELECT free FROM room) AS room, (SELECT count(*) FROM stored) AS stored""";

    private final MessageCipher cipher;

    public ReceiveAttemptStore(MessageCipher cipher) {
        this.cipher = cipher;
    }

    /** What a replay found. */
    sealed interface Replay {}

    /** No queue of that name. */
    record NoQueue() implements Replay {}

    /** The id names no live receive; {@code atBound}: the project holds as many as it may. */
    record NotRemembered(boolean atBound) implements Replay {}

    /** The id's receive no longer holds its messages as it left them: the id is spent. */
    record Spent() implements Replay {}

    /** The receive again: its claim and messages, their visibility set again. */
    record Replayed(ClaimService.NewClaim claim) implements Replay {}

    /** Replays the receive {@code attemptId} made (see {@link #REPLAY}). */
    Uni<Replay> replay(
            PlacedQueue queue, String attemptId, int visibilitySeconds, int maxMessageTtl, int maxPerProject) {
        Tuple parameters = Tuple.of(queue.project(), queue.storedName(), attemptId, visibilitySeconds)
                .addInteger(maxMessageTtl)
                .addInteger(maxPerProject);
        return DatabaseFailures.retriedOnConflict(
                        queue.db().preparedQuery(REPLAY).execute(parameters))
                .map(rows -> {
                    Row first = rows.iterator().next();
                    if (!first.getBoolean("queue_found")) {
                        return new NoQueue();
                    }
                    if (!first.getBoolean("remembered")) {
                        return new NotRemembered(first.getBoolean("at_bound"));
                    }
                    UUID claimId = first.getUUID("claim_id");
                    if (claimId == null) {
                        return new Spent();
                    }
                    List<Message> messages =
                            MessageRows.of(cipher, queue).read(rows).messages();
                    return new Replayed(new ClaimService.NewClaim(claimId, messages));
                });
    }

    /**
     * Remembers the receive {@code claim} answered under {@code attemptId} (see {@link #REMEMBER}), one receive of the
     * project at a time on {@code pool}, the queue's database; false when the project holds its bound of attempt ids already (nothing remembered).
     */
    Uni<Boolean> remember(
            Pool pool, PlacedQueue queue, String attemptId, ClaimService.NewClaim claim, int maxPerProject) {
        List<Message> messages = claim.messages();
        Tuple parameters = Tuple.of(queue.project(), queue.storedName(), attemptId, claim.id())
                .addArrayOfLong(messages.stream().map(Message::id).toArray(Long[]::new))
                .addArrayOfInteger(messages.stream().map(Message::claimCount).toArray(Integer[]::new))
                .addInteger(maxPerProject)
                .addInteger(REMEMBERED_SECONDS);
        return DatabaseFailures.retriedOnConflict(pool.withTransaction(tx -> tx.preparedQuery(LOCK_PROJECT)
                        .execute(Tuple.of(queue.project()))
                        .chain(() -> tx.preparedQuery(REMEMBER).execute(parameters))))
                .map(rows -> rows.iterator().next().getBoolean("room"));
    }
}
