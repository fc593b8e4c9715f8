package io.pigeon.sqs;

import io.pigeon.message.NewMessage;
import io.pigeon.message.TraceContext;
import io.pigeon.message.UnblockedGroups;
import io.pigeon.queue.PlacedQueue;
import io.pigeon.storage.DatabaseFailures;
import io.pigeon.waiting.QueueReady;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * The SQL of SQS's message operations, on the rows Zaqar's statements read and write (decision 0019): the read of
 * what a receive returns beyond Zaqar's message (attributes, timestamps, sender), and the delete and visibility change
 * of a receipt. A send is no statement of its own: it is a Zaqar post to an existing queue that stores the attributes
 * beside the body ({@link io.pigeon.message.MessageService#send}).
 * Every statement names the queue by project and name, as every store's does.
 */
@ApplicationScoped
public class SqsMessageStore {

    // What a receive answers beyond Zaqar's message, for the messages its claim took: read only when the receive asks
    // for attributes, so a receive that asks for none costs Zaqar's claim alone. Not tied to the claim: what is read
    // never changes after the send (first_claimed_at after the first claim), and a message whose visibility timeout
    // was 0 may be claimed again before this read.
    static final String RECEIVED =
            """
            SELECT m.id, m.client_id, m.created_at, m.first_claimed_at, m.key_id, m.sqs_attributes, m.message_group
            FROM queues q JOIN messages m ON m.queue_id = q.id
            WHERE q.project = $1 AND q.name = $2 AND m.id = ANY($3::bigint[])""";

    // Deletes each receipt's message if that receipt is still its latest receive: the claim count the receipt saw
    // (no claim has taken it since) and its claim or none (the sweeper cleared the ended claim). An older receipt
    // deletes nothing and is no error, as SQS answers it (decision 0019). One row: whether the queue exists, and the
    // ids deleted. A delete that unblocks a FIFO queue's group tells the queue's waiting receives (UnblockedGroups).
    static final String DELETE =
            """
            WITH q AS (SELECT id, wake_until, metadata->>'_ordering' AS ordering
                       FROM queues WHERE project = $1 AND name = $2),
            deleted AS (
                DELETE FROM messages m
                USING unnest($3::bigint[], $4::uuid[], $5::int[]) AS r (id, claim_id, receive_count)
                WHERE m.queue_id = (SELECT id FROM q) AND m.id = r.id AND m.claim_count = r.receive_count
                  AND (m.claim_id IS NULL OR m.claim_id = r.claim_id)
                RETURNING m.id, %s),
            %s
            SELECT EXISTS (SELECT 1 FROM q) AS queue_found, ARRAY(SELECT id FROM deleted ORDER BY id) AS deleted,
                   %s AS waiters_told"""
                    .formatted(
                            UnblockedGroups.returned("m"),
                            UnblockedGroups.told(
                                    "waiters_told", "q", "q.ordering", "$1", "$2", "q.id", "deleted", "q.wake_until"),
                            QueueReady.told("waiters_told"));

    // DELETE for the receipts of several requests (see Coalescer), on one queue or several of the database (of any
    // projects), in one statement: each distinct queue ($1 projects, $2 names) looked up once by its key, each receipt
    // ($3 to $6) naming its queue by ordinal and deleting only a row of that queue, under the same test of its claim
    // as DELETE. One row: the ordinals of the queues found, and the queue ordinal and id of every row deleted, so each
    // request is told its own. Materialized for the reason MessageStore.DELETE_BY_IDS_SHARED gives.
    static final String DELETE_SHARED =
            """
            WITH q AS (
                SELECT q.id, r.ord, q.project, q.name, q.wake_until, q.metadata->>'_ordering' AS ordering
                FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS r (project, name, ord)
                JOIN queues q ON q.project = r.project AND q.name = r.name),
            named AS MATERIALIZED (
                SELECT r.queue_ord, q.id AS queue_id, r.id, r.claim_id, r.receive_count
                FROM q JOIN unnest($3::int[], $4::bigint[], $5::uuid[], $6::int[])
                            AS r (queue_ord, id, claim_id, receive_count) ON r.queue_ord = q.ord),
            deleted AS (
                DELETE FROM messages m USING named n
                WHERE m.queue_id = n.queue_id AND m.id = n.id AND m.claim_count = n.receive_count
                  AND (m.claim_id IS NULL OR m.claim_id = n.claim_id)
                RETURNING n.queue_ord, m.id, %s),
            %s
            SELECT ARRAY(SELECT ord FROM q ORDER BY ord)::int[] AS queues_found,
                   ARRAY(SELECT queue_ord FROM deleted ORDER BY id) AS deleted_queues,
                   ARRAY(SELECT id FROM deleted ORDER BY id) AS deleted, %s AS waiters_told"""
                    .formatted(
                            UnblockedGroups.returned("m"),
                            UnblockedGroups.told(
                                    "waiters_told",
                                    "q",
                                    "q.ordering",
                                    "q.project",
                                    "q.name",
                                    "q.id",
                                    "deleted",
                                    "q.wake_until"),
                            QueueReady.told("waiters_told"));

    // Changes the visibility of each receipt's message while it is in flight under that receipt (its claim, its
    // claim count, its deadline still ahead): its own deadline becomes now + the timeout (0: claimable now); its life
    // is extended to cover it, up to max-message-ttl ($7); its claim row lives at least as long (the sweeper settles a
    // claim's messages when the row ends, so it must not end before the last of them). No deadline more than 12 hours
    // ($8 seconds) after the receive (the claim's start). One row per receipt, in their order: whether it changed,
    // whether its message still exists in the queue and was in flight under the receipt (as the statement found them).
    static final String CHANGE_VISIBILITY =
            """
            WITH q AS (SELECT id, wake_until FROM queues WHERE project = $1 AND name = $2),
            asked AS (
                SELECT a.*, (a.timeout = 0 OR c.created_at + $8 * interval '1 second'
                                                >= now() + a.timeout * interval '1 second') AS within
                FROM unnest($3::bigint[], $4::uuid[], $5::int[], $6::int[])
                     WITH ORDINALITY AS a (id, claim_id, receive_count, timeout, ord)
                LEFT JOIN claims c ON c.queue_id = (SELECT id FROM q) AND c.id = a.claim_id),
            changed AS (
                UPDATE messages m
                SET claim_expires_at = now() + a.timeout * interval '1 second',
                    ttl = GREATEST(m.ttl, LEAST(ceil(extract(epoch FROM now() - m.created_at))::int + a.timeout, $7)),
                    expires_at = m.created_at
                        + GREATEST(m.ttl, LEAST(ceil(extract(epoch FROM now() - m.created_at))::int + a.timeout, $7))
                          * interval '1 second'
                FROM asked a
                WHERE a.within AND m.queue_id = (SELECT id FROM q) AND m.id = a.id AND m.claim_id = a.claim_id
                  AND m.claim_count = a.receive_count AND m.claim_expires_at > now() AND m.expires_at > now()
                RETURNING m.id, a.claim_id, a.timeout, m.claim_expires_at),
            extended AS (
                UPDATE claims c SET expires_at = x.until
                FROM (SELECT claim_id, max(claim_expires_at) AS until FROM changed GROUP BY claim_id) x
                WHERE c.queue_id = (SELECT id FROM q) AND c.id = x.claim_id AND c.expires_at < x.until
                RETURNING c.id),
            %s
            SELECT a.ord, EXISTS (SELECT 1 FROM changed c WHERE c.id = a.id AND c.claim_id = a.claim_id) AS changed,
                   EXISTS (SELECT 1 FROM messages m WHERE m.queue_id = (SELECT id FROM q) AND m.id = a.id
                           AND m.expires_at > now()) AS exists,
                   EXISTS (SELECT 1 FROM messages m WHERE m.queue_id = (SELECT id FROM q) AND m.id = a.id
                           AND m.claim_id = a.claim_id AND m.claim_count = a.receive_count
                           AND m.claim_expires_at > now() AND m.expires_at > now()) AS in_flight,
                   EXISTS (SELECT 1 FROM q) AS queue_found, (SELECT count(*) FROM extended) AS extended,
                   %s AS waiters_told
            FROM asked a
            ORDER BY a.ord"""
                    .formatted(
                            QueueReady.cte(
                                    "waiters_told",
                                    "q",
                                    "true",
                                    "$1",
                                    "$2",
                                    "(SELECT count(*) FROM changed WHERE timeout = 0)",
                                    "q.wake_until"),
                            QueueReady.told("waiters_told"));

    /**
     * One message to send: its delay (null: the queue's), its body as stored, its attributes' text (null: none), its
     * MessageGroupId (null: none), the W3C trace context of its {@code AWSTraceHeader} (null: none, or not X-Ray's
     * form; {@link XRayTraceHeaders}). A send is stored by the Zaqar post's statement
     * ({@link io.pigeon.message.MessageService#send}), which stores the attributes and group too and shares its
     * statement with the posts arriving together; a FIFO send runs the same statement in its deduplicating
     * transaction ({@link FifoSends}).
     */
    record Outgoing(Integer delay, String body, String attributes, String group, TraceContext trace) {

        /** A message without a group (a standard queue's) or a trace context. */
        Outgoing(Integer delay, String body, String attributes) {
            this(delay, body, attributes, null, null);
        }

        /** The message to post. */
        NewMessage message() {
            return new NewMessage(null, delay, body, group, trace);
        }
    }

    /** A received message's stored extras: who sent it, when, when first received, its attributes' text, its group. */
    record Extras(
            UUID clientId,
            OffsetDateTime sentAt,
            OffsetDateTime firstReceivedAt,
            String keyId,
            String attributes,
            String group) {}

    /** The extras of the messages {@code ids}, by id (a message gone meanwhile has none). */
    Uni<Map<Long, Extras>> received(PlacedQueue queue, long[] ids) {
        return queue.db()
                .preparedQuery(RECEIVED)
                .execute(Tuple.of(queue.project(), queue.storedName())
                        .addArrayOfLong(Arrays.stream(ids).boxed().toArray(Long[]::new)))
                .map(rows -> {
                    Map<Long, Extras> byId = new HashMap<>();
                    for (Row row : rows) {
                        byId.put(
                                row.getLong("id"),
                                new Extras(
                                        row.getUUID("client_id"),
                                        row.getOffsetDateTime("created_at"),
                                        row.getOffsetDateTime("first_claimed_at"),
                                        row.getString("key_id"),
                                        row.getString("sqs_attributes"),
                                        row.getString("message_group")));
                    }
                    return byId;
                });
    }

    /** Whether the queue exists, and the message ids deleted. */
    record Deleted(boolean queueFound, Set<Long> ids) {}

    /** One request's receipts in its queue. */
    record ReceiptsInQueue(PlacedQueue queue, List<Receipt> receipts) {}

    /**
     * Deletes the messages of every request's receipts that are still their messages' latest, in one statement (all
     * on {@code db}); what each request found and deleted, in their order.
     */
    Uni<List<Deleted>> delete(SqlClient db, List<ReceiptsInQueue> requests) {
        if (requests.size() == 1) {
            return delete(requests.get(0).queue(), requests.get(0).receipts()).map(List::of);
        }
        SharedReceiptDelete shared = SharedReceiptDelete.of(requests);
        return db.preparedQuery(DELETE_SHARED)
                .execute(shared.parameters())
                .map(rows -> shared.answers(rows.iterator().next()));
    }

    /** Deletes the messages of the receipts that are still their messages' latest; see {@link #DELETE}. */
    Uni<Deleted> delete(PlacedQueue queue, List<Receipt> receipts) {
        Tuple parameters = Tuple.of(queue.project(), queue.storedName())
                .addArrayOfLong(receipts.stream().map(Receipt::messageId).toArray(Long[]::new))
                .addArrayOfUUID(receipts.stream().map(Receipt::claimId).toArray(UUID[]::new))
                .addArrayOfInteger(receipts.stream().map(Receipt::receiveCount).toArray(Integer[]::new));
        return DatabaseFailures.retriedOnConflict(
                        queue.db().preparedQuery(DELETE).execute(parameters))
                .map(rows -> {
                    Row row = rows.iterator().next();
                    Set<Long> deleted = new HashSet<>();
                    Long[] ids = row.getArrayOfLongs("deleted");
                    if (ids != null) {
                        deleted.addAll(Arrays.asList(ids));
                    }
                    return new Deleted(row.getBoolean("queue_found"), deleted);
                });
    }

    /** A receipt's visibility change as asked. */
    record VisibilityChange(Receipt receipt, int timeout) {}

    /** What became of one change: made, or why not (the message is gone, not in flight, or past the 12 hours). */
    enum ChangeOutcome {
        CHANGED,
        GONE,
        NOT_IN_FLIGHT,
        BEYOND_MAXIMUM
    }

    /** Whether the queue exists, and each change's outcome in their order. */
    record Changed(boolean queueFound, List<ChangeOutcome> outcomes) {}

    Uni<Changed> changeVisibility(
            PlacedQueue queue, List<VisibilityChange> changes, int maxMessageTtl, int maxVisibilitySeconds) {
        Tuple parameters = Tuple.of(queue.project(), queue.storedName())
                .addArrayOfLong(
                        changes.stream().map(c -> c.receipt().messageId()).toArray(Long[]::new))
                .addArrayOfUUID(changes.stream().map(c -> c.receipt().claimId()).toArray(UUID[]::new))
                .addArrayOfInteger(
                        changes.stream().map(c -> c.receipt().receiveCount()).toArray(Integer[]::new))
                .addArrayOfInteger(
                        changes.stream().map(VisibilityChange::timeout).toArray(Integer[]::new))
                .addInteger(maxMessageTtl)
                .addInteger(maxVisibilitySeconds);
        return DatabaseFailures.retriedOnConflict(
                        queue.db().preparedQuery(CHANGE_VISIBILITY).execute(parameters))
                .map(rows -> {
                    List<ChangeOutcome> outcomes = new ArrayList<>(changes.size());
                    boolean queueFound = false;
                    for (Row row : rows) {
                        queueFound = row.getBoolean("queue_found");
                        outcomes.add(
                                row.getBoolean("changed")
                                        ? ChangeOutcome.CHANGED
                                        : !row.getBoolean("exists")
                                                ? ChangeOutcome.GONE
                                                : !row.getBoolean("in_flight")
                                                        ? ChangeOutcome.NOT_IN_FLIGHT
                                                        : ChangeOutcome.BEYOND_MAXIMUM);
                    }
                    return new Changed(queueFound, outcomes);
                });
    }
}
