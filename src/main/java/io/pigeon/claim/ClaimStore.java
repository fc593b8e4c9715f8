package io.pigeon.claim;

import io.pigeon.encryption.MessageCipher;
import io.pigeon.message.FreeMessages;
import io.pigeon.message.Message;
import io.pigeon.message.MessageRows;
import io.pigeon.queue.PlacedQueue;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.RowSet;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * The SQL of claims. Taking a claim is one statement: it locks the oldest free messages with
 * {@code FOR UPDATE SKIP LOCKED}, so two claimers never take the same live message, marks them, extends
 * their lives, and records the claim.
 */
@ApplicationScoped
public class ClaimStore {

    private static final String AGE = "floor(extract(epoch FROM now() - %s.created_at))::bigint";

    /**
     * A claimed message's new lifetime in whole seconds: at least until the claim ends plus grace, never
     * shorter than it was, never beyond max-message-ttl from posting. {@code %1$s} is the claim's TTL plus
     * grace, {@code %2$s} the max-message-ttl.
     */
    private static final String EXTENDED_LIFETIME =
            "GREATEST(m.ttl, LEAST(ceil(extract(epoch FROM now() - m.created_at))::int + %1$s, %2$s))";

    // One claim alone (the common case below a few concurrent claimers per queue): lock the oldest free messages (see
    // FreeMessages), mark them claimed, count the claim, extend their lives, and record the claim. Cheaper than the
    // statement for several (no hand-out by rank): measured 0.2 ms less per claim at one client.
    static final String CREATE_ONE =
            """
            WITH q AS (SELECT id, %3$s AS max_claims FROM queues WHERE project = $1 AND name = $2),
            claimed AS (
                UPDATE messages m
                SET claim_id = $3,
                    claim_expires_at = now() + $5 * interval '1 second',
                    claim_count = m.claim_count + 1,
                    ttl = %1$s,
                    expires_at = m.created_at + %1$s * interval '1 second'
                FROM q
                WHERE m.queue_id = q.id AND m.id = ANY(ARRAY(%4$s))
                RETURNING m.id, m.ttl, m.created_at, m.body, m.key_id),
            recorded AS (
                INSERT INTO claims (id, queue_id, ttl, grace, expires_at, message_ids)
                SELECT $3, q.id, $5, $6, now() + $5 * interval '1 second', ARRAY(SELECT id FROM claimed ORDER BY id)
                FROM q
                WHERE EXISTS (SELECT 1 FROM claimed))
            SELECT q.id AS queue_id, 1 AS claim_index, c.id, c.ttl, %2$s AS age, c.body, c.key_id
            FROM q LEFT JOIN claimed c ON true
            ORDER BY c.id"""
                    .formatted(
                            EXTENDED_LIFETIME.formatted("$5 + $6", "$7"),
                            AGE.formatted("c"),
                            FreeMessages.MAX_CLAIMS_OF_METADATA,
                            FreeMessages.lockOldest("(SELECT id FROM q)", "$4", "(SELECT max_claims FROM q)"));

    // One statement for several claims (see Coalescer): lock the oldest free messages, as many as all the
    // claims ask for together (see FreeMessages), hand them out oldest first in the claims' order (the first claim
    // gets the oldest n1, the next the following n2, ...), mark each with its claim and its terms, count the claim,
    // extend their lives, and record every claim that got a message. The queue id is a scalar subquery, not a join
    // with q: only then does the planner scan the index from the queue's oldest row.
    static final String CREATE =
            """
            WITH q AS (SELECT id, %3$s AS max_claims FROM queues WHERE project = $1 AND name = $2),
            asked AS (
                SELECT a.claim_id, a.ttl, a.grace, a.claim_index,
                       sum(a.wanted) OVER (ORDER BY a.claim_index) - a.wanted AS after,
                       sum(a.wanted) OVER (ORDER BY a.claim_index) AS up_to
                FROM unnest($3::uuid[], $4::int[], $5::int[], $6::int[])
                     WITH ORDINALITY AS a (claim_id, wanted, ttl, grace, claim_index)),
            taken AS (
                SELECT f.id, a.claim_index, a.claim_id, a.ttl, a.grace
                FROM unnest(ARRAY(%4$s)) WITH ORDINALITY AS f (id, rank)
                JOIN asked a ON f.rank > a.after AND f.rank <= a.up_to),
            claimed AS (
                UPDATE messages m
                SET claim_id = t.claim_id,
                    claim_expires_at = now() + t.ttl * interval '1 second',
                    claim_count = m.claim_count + 1,
                    ttl = %1$s,
                    expires_at = m.created_at + %1$s * interval '1 second'
                FROM taken t
                WHERE m.queue_id = (SELECT id FROM q) AND m.id = t.id
                RETURNING t.claim_index, m.id, m.ttl, m.created_at, m.body, m.key_id),
            recorded AS (
                INSERT INTO claims (id, queue_id, ttl, grace, expires_at, message_ids)
                SELECT a.claim_id, (SELECT id FROM q), a.ttl, a.grace, now() + a.ttl * interval '1 second', h.ids
                FROM (SELECT claim_index, array_agg(id ORDER BY id) AS ids FROM claimed GROUP BY claim_index) h
                JOIN asked a ON a.claim_index = h.claim_index)
            SELECT q.id AS queue_id, c.claim_index, c.id, c.ttl, %2$s AS age, c.body, c.key_id
            FROM q LEFT JOIN claimed c ON true
            ORDER BY c.id"""
                    .formatted(
                            EXTENDED_LIFETIME.formatted("t.ttl + t.grace", "$7"),
                            AGE.formatted("c"),
                            FreeMessages.MAX_CLAIMS_OF_METADATA,
                            FreeMessages.lockOldest("(SELECT id FROM q)", "$8", "(SELECT max_claims FROM q)"));

    private static final String GET =
            """
            SELECT c.ttl AS claim_ttl, %1$s AS claim_age, m.id, m.ttl, %2$s AS age, m.body, m.key_id
            FROM queues q
            JOIN claims c ON c.queue_id = q.id AND c.id = $3 AND c.expires_at > now()
            LEFT JOIN messages m ON m.queue_id = c.queue_id AND m.id = ANY(c.message_ids)
                AND m.claim_id = c.id AND m.expires_at > now()
            WHERE q.project = $1 AND q.name = $2
            ORDER BY m.id"""
                    .formatted(AGE.formatted("c"), AGE.formatted("m"));

    // $4 is cast where it scales the interval: untyped, PostgreSQL would deduce it as an integer (the ttl column) and
    // a double precision (the product) at once, refuse to prepare the statement, and the client would prepare it a
    // second time with the value's type -- a failed parse and an ERROR in the server's log per connection.
    // The claim's rows are found through the primary key with the ids the claim recorded. Scalar
    // subqueries over c (rather than a join) give the key's values to the index scan, and
    // "IS NOT DISTINCT FROM" (equal to "=" for a non-null claim id) does not imply "claim_id IS NOT NULL",
    // so the planner cannot pick messages_claim_deadline and walk every claimed row of the queue.
    private static final String RENEW =
            """
            WITH c AS (
                UPDATE claims c
                SET ttl = $4, grace = COALESCE($5, c.grace), created_at = now(),
                    expires_at = now() + $4::integer * interval '1 second'
                FROM queues q
                WHERE q.project = $1 AND q.name = $2 AND c.queue_id = q.id AND c.id = $3 AND c.expires_at > now()
                RETURNING c.queue_id, c.id, c.message_ids, c.ttl, c.grace, c.expires_at),
            renewed AS (
                UPDATE messages m
                SET claim_expires_at = (SELECT expires_at FROM c),
                    ttl = %1$s,
                    expires_at = m.created_at + %1$s * interval '1 second'
                WHERE m.queue_id = (SELECT queue_id FROM c) AND m.id = ANY((SELECT message_ids FROM c)::bigint[])
                  AND m.claim_id IS NOT DISTINCT FROM $3 AND m.expires_at > now()
                RETURNING m.id)
            SELECT count(*) AS claims FROM c"""
                    .formatted(EXTENDED_LIFETIME.formatted("(SELECT ttl + grace FROM c)", "$6"));

    // Releasing ends the claim now rather than deleting it: its messages are free at once (a claim takes
    // messages of ended claims), and the sweeper then frees or dead-letters them like those of any
    // expired claim. As RENEW: primary-key probes only.
    private static final String RELEASE =
            """
            WITH c AS (
                UPDATE claims c SET expires_at = now()
                FROM queues q
                WHERE q.project = $1 AND q.name = $2 AND c.queue_id = q.id AND c.id = $3 AND c.expires_at > now()
                RETURNING c.queue_id, c.id, c.message_ids)
            UPDATE messages m SET claim_expires_at = now()
            WHERE m.queue_id = (SELECT queue_id FROM c) AND m.id = ANY((SELECT message_ids FROM c)::bigint[])
              AND m.claim_id IS NOT DISTINCT FROM $3""";

    private final MessageCipher cipher;

    public ClaimStore(MessageCipher cipher) {
        this.cipher = cipher;
    }

    /** A claim to take: its id, how many messages it asks for, and its terms. */
    public record Request(UUID id, int limit, ClaimTerms terms) {}

    /**
     * What a claim statement took: for each claim, its messages that open, oldest first (empty: the queue is
     * missing); and the rows it took that do not open, in queue {@code queueId}, held by claims {@code holders}
     * (they are still claimed: set them aside before answering).
     */
    public record Taken(
            List<Optional<List<Message>>> answers,
            long queueId,
            List<MessageRows.Unopened> unreadable,
            UUID[] holders) {}

    /**
     * Takes every claim in one statement, the oldest free messages to the first: for each, its messages oldest first
     * (none when nothing was left free for it), in the claims' order; every answer is empty when the queue is missing.
     */
    public Uni<Taken> create(PlacedQueue queue, List<Request> claims, int maxMessageTtl) {
        Claims taking = new Claims(claims, maxMessageTtl);
        return queue.db()
                .preparedQuery(taking.alone() ? CREATE_ONE : CREATE)
                .execute(taking.parameters(queue))
                .map(rows -> taken(rows, queue, claims));
    }

    /**
     * What a claim statement takes besides its queue. The record owns the order of the parameters of both forms:
     * one claim alone ({@link #CREATE_ONE}) binds its id, limit and terms ($3 to $6) as scalars, several
     * ({@link #CREATE}) one array of each, and the messages they ask for together ($8).
     */
    private record Claims(List<Request> claims, int maxMessageTtl) {

        boolean alone() {
            return claims.size() == 1;
        }

        Tuple parameters(PlacedQueue queue) {
            if (alone()) {
                Request claim = claims.get(0);
                return Tuple.from(List.of(
                        queue.project(),
                        queue.storedName(),
                        claim.id(),
                        claim.limit(),
                        claim.terms().ttl(),
                        claim.terms().grace(),
                        maxMessageTtl));
            }
            UUID[] ids = new UUID[claims.size()];
            Integer[] limits = new Integer[claims.size()];
            Integer[] ttls = new Integer[claims.size()];
            Integer[] graces = new Integer[claims.size()];
            int total = 0;
            for (int i = 0; i < claims.size(); i++) {
                Request claim = claims.get(i);
                ids[i] = claim.id();
                limits[i] = claim.limit();
                ttls[i] = claim.terms().ttl();
                graces[i] = claim.terms().grace();
                total += claim.limit();
            }
            return Tuple.of(queue.project(), queue.storedName())
                    .addArrayOfUUID(ids)
                    .addArrayOfInteger(limits)
                    .addArrayOfInteger(ttls)
                    .addArrayOfInteger(graces)
                    .addInteger(maxMessageTtl)
                    .addInteger(total);
        }
    }

    /** Each of {@code claims} claims' messages from the rows of a claim statement (none at all: no queue). */
    private Taken taken(RowSet<Row> rows, PlacedQueue queue, List<Request> claims) {
        if (rows.size() == 0) {
            return new Taken(
                    Collections.nCopies(claims.size(), Optional.<List<Message>>empty()), 0, List.of(), new UUID[0]);
        }
        List<List<Message>> taken = new ArrayList<>(claims.size());
        for (int i = 0; i < claims.size(); i++) {
            taken.add(new ArrayList<>());
        }
        MessageRows reader = MessageRows.of(cipher, queue);
        List<MessageRows.Unopened> unreadable = new ArrayList<>(0);
        Set<UUID> holders = new LinkedHashSet<>();
        for (Row row : rows) {
            if (row.getLong("id") != null) {
                // Rows come oldest first, so each claim's list is oldest first.
                int claim = ((Number) row.getValue("claim_index")).intValue() - 1;
                Message message = reader.open(row, unreadable);
                if (message != null) {
                    taken.get(claim).add(message);
                } else {
                    holders.add(claims.get(claim).id());
                }
            }
        }
        return new Taken(
                taken.stream().map(Optional::of).toList(),
                rows.iterator().next().getLong("queue_id"),
                unreadable,
                holders.toArray(UUID[]::new));
    }

    /** A live claim with its live messages that open, and the rows of it that do not. */
    public record Found(Claim claim, List<MessageRows.Unopened> unreadable) {}

    /** The live claim with its live messages, or empty. */
    public Uni<Optional<Found>> get(PlacedQueue queue, UUID claimId) {
        return queue.db()
                .preparedQuery(GET)
                .execute(Tuple.of(queue.project(), queue.storedName(), claimId))
                .map(rows -> {
                    if (rows.size() == 0) {
                        return Optional.empty();
                    }
                    Row first = rows.iterator().next();
                    MessageRows.Read read = MessageRows.of(cipher, queue).read(rows);
                    return Optional.of(new Found(
                            new Claim(
                                    claimId,
                                    first.getInteger("claim_ttl"),
                                    first.getLong("claim_age"),
                                    read.messages()),
                            read.unreadable()));
                });
    }

    /** Renews a live claim from now with new terms ({@code grace} null keeps the old one); false if none. */
    public Uni<Boolean> renew(PlacedQueue queue, UUID claimId, int ttl, Integer grace, int maxMessageTtl) {
        return queue.db()
                .preparedQuery(RENEW)
                .execute(Tuple.from(
                        Arrays.asList(queue.project(), queue.storedName(), claimId, ttl, grace, maxMessageTtl)))
                .map(rows -> rows.iterator().next().getLong("claims") > 0);
    }

    /** Ends the claim now; its messages are free at once. */
    public Uni<Void> release(PlacedQueue queue, UUID claimId) {
        return queue.db()
                .preparedQuery(RELEASE)
                .execute(Tuple.of(queue.project(), queue.storedName(), claimId))
                .replaceWithVoid();
    }
}
