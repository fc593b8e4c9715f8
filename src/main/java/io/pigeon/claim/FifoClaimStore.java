package io.pigeon.claim;

import io.pigeon.message.FreeMessages;
import io.pigeon.message.GroupedMessages;
import io.pigeon.queue.Ordering;
import io.pigeon.queue.PlacedQueue;
import io.pigeon.storage.DatabaseFailures;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;
import java.util.UUID;

/**
 * The SQL of claims on a {@code "fifo"} queue (decision 0020): several claims of one queue taken in one statement,
 * under one hold of the queue's lock and one commit, each handed groups of its own (migration V34's
 * {@code pigeon_fifo_free_each}). A fifo claim's cost is the queue's lock held through the commit's WAL flush; claims
 * taken one statement each served about one claim per flush per queue however many consumers were waiting.
 */
@ApplicationScoped
public class FifoClaimStore {

    // Claims $3 (ids), $4 (how many each wants), $5 (claim TTLs), $6 (graces) on the queue $1/$2, in that order; $7
    // the max-message-ttl. The function runs only when the queue's ordering is fifo (else no message is taken, and the
    // answer's ordering says what the queue is); it hands each claim its messages (claim_index, the claim's 1-based
    // position); the UPDATE locks them by id, waiting for any other holder (V31), marks each with its claim and terms,
    // counts the claim and extends the message's life; every claim that got a message is recorded. One row per claim
    // at least, in the claims' order: queue_id null when the queue does not exist, id null when nothing was left for
    // that claim.
    static final String CREATE =
            """
            WITH q AS (SELECT id, %3$s AS max_claims, %4$s AS wait_default, metadata->>'_ordering' AS ordering
                       FROM queues WHERE project = $1 AND name = $2),
            asked AS (
                SELECT a.claim_index::int AS claim_index, a.claim_id, a.ttl, a.grace
                FROM unnest($3::uuid[], $5::int[], $6::int[]) WITH ORDINALITY AS a (claim_id, ttl, grace, claim_index)),
            taken AS MATERIALIZED (
                SELECT f.claim_index, f.message_id AS id
                FROM (SELECT id, max_claims FROM q WHERE %5$s) fq
                CROSS JOIN LATERAL pigeon_fifo_free_each(fq.id, $4::int[], fq.max_claims) f),
            claimed AS (
                UPDATE messages m
                %1$s
                FROM taken t
                JOIN asked a ON a.claim_index = t.claim_index
                CROSS JOIN q
                WHERE m.queue_id = q.id AND m.id = t.id
                RETURNING t.claim_index, m.id, m.ttl, m.created_at, m.body, m.key_id, m.claim_count, m.message_group,
                          m.traceparent, m.tracestate),
            recorded AS (
                INSERT INTO claims (id, queue_id, ttl, grace, expires_at, message_ids)
                SELECT a.claim_id, q.id, a.ttl, a.grace, now() + a.ttl * interval '1 second', h.ids
                FROM (SELECT claim_index, array_agg(id ORDER BY id) AS ids FROM claimed GROUP BY claim_index) h
                JOIN asked a ON a.claim_index = h.claim_index
                CROSS JOIN q)
            SELECT q.id AS queue_id, a.claim_index, c.id, c.ttl, %2$s AS age, c.body, c.key_id, c.claim_count,
                   c.message_group, c.traceparent, c.tracestate, q.wait_default, q.ordering
            FROM asked a
            LEFT JOIN q ON true
            LEFT JOIN claimed c ON c.claim_index = a.claim_index
            ORDER BY a.claim_index, c.id"""
                    .formatted(
                            ClaimStore.MARK_CLAIMED.formatted(
                                    "a.claim_id",
                                    "a.ttl",
                                    ClaimStore.EXTENDED_LIFETIME.formatted("a.ttl + a.grace", "$7")),
                            ClaimStore.AGE.formatted("c"),
                            FreeMessages.MAX_CLAIMS_OF_METADATA,
                            ClaimStore.WAIT_DEFAULT_OF_METADATA.formatted("metadata"),
                            GroupedMessages.orderingIs("ordering", Ordering.FIFO));

    private final ClaimStore claims;

    public FifoClaimStore(ClaimStore claims) {
        this.claims = claims;
    }

    /**
     * Takes {@code requests}, claims on one fifo queue, in one statement: each claim, in their order, gets the
     * messages the same claims taken one after the other would. A statement that PostgreSQL aborts in a deadlock (with
     * the sweeper, over rows it waits for rather than skips) changed nothing and runs again.
     */
    public Uni<ClaimStore.Taken> create(List<ClaimStore.Request> requests, int maxMessageTtl) {
        PlacedQueue queue = requests.get(0).queue();
        UUID[] ids = new UUID[requests.size()];
        Integer[] limits = new Integer[requests.size()];
        Integer[] ttls = new Integer[requests.size()];
        Integer[] graces = new Integer[requests.size()];
        for (int i = 0; i < requests.size(); i++) {
            ClaimStore.Request request = requests.get(i);
            ids[i] = request.id();
            limits[i] = request.limit();
            ttls[i] = request.terms().ttl();
            graces[i] = request.terms().grace();
        }
        Tuple parameters = Tuple.tuple()
                .addString(queue.project())
                .addString(queue.storedName())
                .addArrayOfUUID(ids)
                .addArrayOfInteger(limits)
                .addArrayOfInteger(ttls)
                .addArrayOfInteger(graces)
                .addInteger(maxMessageTtl);
        return DatabaseFailures.retriedOnConflict(
                        queue.db().preparedQuery(CREATE).execute(parameters))
                .map(rows -> claims.taken(rows, requests));
    }
}
