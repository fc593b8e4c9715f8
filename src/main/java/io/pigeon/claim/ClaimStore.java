package io.pigeon.claim;

import io.pigeon.encryption.MessageCipher;
import io.pigeon.message.FreeMessages;
import io.pigeon.message.GroupedMessages;
import io.pigeon.message.Message;
import io.pigeon.message.MessageRows;
import io.pigeon.queue.Ordering;
import io.pigeon.queue.PlacedQueue;
import io.pigeon.storage.DatabaseFailures;
import io.pigeon.waiting.QueueReady;
import io.pigeon.waiting.QueueWaits;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.RowSet;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
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

    static final String AGE = "floor(extract(epoch FROM now() - %s.created_at))::bigint";

    /**
     * The queue's {@code _claim_wait_seconds} from its metadata column {@code %s} (null: unset), returned with every
     * claim: a claim that finds nothing free then knows, without another statement, how long its queue wants it to wait.
     */
    static final String WAIT_DEFAULT_OF_METADATA = "(%s->>'" + QueueWaits.DEFAULT_ATTRIBUTE + "')::int";

    /**
     * A claimed message's new lifetime in whole seconds: at least until the claim ends plus grace, never
     * shorter than it was, never beyond max-message-ttl from posting. {@code %1$s} is the claim's TTL plus
     * grace, {@code %2$s} the max-message-ttl.
     */
    static final String EXTENDED_LIFETIME =
            "GREATEST(m.ttl, LEAST(ceil(extract(epoch FROM now() - m.created_at))::int + %1$s, %2$s))";

    /**
     * The SET clause of the UPDATE that marks messages {@code m} claimed: by claim {@code %1$s} for {@code %2$s}
     * seconds, counting the claim, with the lifetime {@code %3$s} ({@link #EXTENDED_LIFETIME}).
     */
    static final String MARK_CLAIMED =
            """
            SET claim_id = %1$s,
                    claim_expires_at = now() + %2$s * interval '1 second',
                    claim_count = m.claim_count + 1,
                    first_claimed_at = COALESCE(m.first_claimed_at, now()),
                    ttl = %3$s,
                    expires_at = m.created_at + %3$s * interval '1 second'""";

    // One claim alone (the common case below a few concurrent claimers per database): lock the oldest free messages
    // (see
    // FreeMessages), mark them claimed, count the claim, extend their lives, and record the claim. Cheaper than the
    // statement for several (no hand-out by rank): measured 0.2 ms less per claim at one client.
    static final String CREATE_ONE = createOne(Ordering.NONE);

    /**
     * {@link #CREATE_ONE} for a queue of {@code ordering}: the same statement, taking the messages {@link
     * GroupedMessages#free} picks for that ordering, and only when the queue has that ordering (the answer's
     * {@code ordering} says which it has, so that a claim sent with the wrong one, which takes nothing, is sent again).
     */
    static String createOne(Ordering ordering) {
        return """
            WITH q AS (SELECT id, %3$s AS max_claims, %5$s AS wait_default, metadata->>'_ordering' AS ordering
                       FROM queues WHERE project = $1 AND name = $2),
            claimed AS (
                UPDATE messages m
                %1$s
                FROM q
                WHERE m.queue_id = q.id AND m.id = ANY(%4$s)
                RETURNING m.id, m.ttl, m.created_at, m.body, m.key_id, m.claim_count, m.message_group, m.traceparent,
                          m.tracestate),
            recorded AS (
                INSERT INTO claims (id, queue_id, ttl, grace, expires_at, message_ids)
                SELECT $3, q.id, $5, $6, now() + $5 * interval '1 second', ARRAY(SELECT id FROM claimed ORDER BY id)
                FROM q
                WHERE EXISTS (SELECT 1 FROM claimed))
            SELECT q.id AS queue_id, 1 AS claim_index, c.id, c.ttl, %2$s AS age, c.body, c.key_id, c.claim_count,
                   c.message_group, c.traceparent, c.tracestate, q.wait_default, q.ordering
            FROM q LEFT JOIN claimed c ON true
            ORDER BY c.id"""
                .formatted(
                        MARK_CLAIMED.formatted("$3", "$5", EXTENDED_LIFETIME.formatted("$5 + $6", "$7")),
                        AGE.formatted("c"),
                        FreeMessages.MAX_CLAIMS_OF_METADATA,
                        GroupedMessages.free(
                                ordering,
                                "(SELECT id FROM q WHERE " + GroupedMessages.orderingIs("ordering", ordering) + ")",
                                "$4",
                                "(SELECT max_claims FROM q)"),
                        WAIT_DEFAULT_OF_METADATA.formatted("metadata"));
    }

    /** {@link #createOne} of a fair queue. */
    static final String CREATE_FAIR = createOne(Ordering.FAIR);

    // One statement for several claims (see Coalescer), on one queue or on several of one database, of one project or
    // of several: each claim names its queue by (project, name), so a claim never reaches another project's queue of
    // the same name. Per distinct queue, lock its oldest free messages, as many as all of that queue's claims ask for
    // together (see FreeMessages, the queue's own dead-letter claim limit); hand them out by rank within the queue in
    // the claims' order (the first claim gets the oldest n1, the next the following n2, ...), mark each with its
    // claim and its terms, count the claim, extend their lives, and record every claim that got a message. One row
    // per claim at least, in the claims' order: queue_id null when its queue does not exist, id null when nothing was
    // left free for it.
    //
    // Plans (PostgreSQL 15, plan_cache_mode=force_generic_plan, PREPARE and EXPLAIN ANALYZE EXECUTE on 5,000 queues
    // and 42,000 messages in 10 of them, with live and ended claims and delayed rows; again with the messages'
    // statistics set to one row): the queues are found by a nested loop of queues_project_name_key probes; "locked"
    // is a nested loop over the distinct queues whose inner function scan runs the locking ARRAY(...) once per
    // queue (loops = queues, never per claim or per row: the CTE is MATERIALIZED, so nothing that reads it can
    // rescan it), each branch an index scan of messages_free_ready / messages_free_delayed /
    // messages_claim_deadline with the queue's id as its key (the lateral reference is a parameter, as a scalar
    // subquery is), LockRows above it and a Limit; the UPDATE
    // probes messages_pkey (queue_id, id) once per taken row. No seq scan of messages, no sort but of the few rows
    // taken. Where a queue holds many ended claims the planner may read that branch as a bitmap scan of the queue's
    // ended claims and sort them, exactly as CREATE_ONE does on the same data.
    static final String CREATE =
            """
            WITH asked AS (
                SELECT a.claim_index, a.claim_id, a.wanted, a.ttl, a.grace, q.id AS queue_id, %3$s AS max_claims,
                       %5$s AS wait_default, q.metadata->>'_ordering' AS ordering
                FROM unnest($1::text[], $2::text[], $3::uuid[], $4::int[], $5::int[], $6::int[])
                     WITH ORDINALITY AS a (project, name, claim_id, wanted, ttl, grace, claim_index)
                LEFT JOIN queues q ON q.project = a.project AND q.name = a.name),
            ranked AS (
                SELECT claim_index, claim_id, ttl, grace, queue_id,
                       sum(wanted) OVER w - wanted AS after, sum(wanted) OVER w AS up_to
                FROM asked
                WHERE queue_id IS NOT NULL
                WINDOW w AS (PARTITION BY queue_id ORDER BY claim_index)),
            locked AS MATERIALIZED (
                SELECT w.queue_id, o.id, o.rank
                FROM (SELECT queue_id, max_claims, sum(wanted) AS wanted
                      FROM asked
                      WHERE queue_id IS NOT NULL AND %6$s
                      GROUP BY queue_id, max_claims) w
                CROSS JOIN LATERAL unnest(ARRAY(%4$s)) WITH ORDINALITY AS o (id, rank)),
            taken AS (
                SELECT l.queue_id, l.id, r.claim_index, r.claim_id, r.ttl, r.grace
                FROM locked l
                JOIN ranked r ON r.queue_id = l.queue_id AND l.rank > r.after AND l.rank <= r.up_to),
            claimed AS (
                UPDATE messages m
                %1$s
                FROM taken t
                WHERE m.queue_id = t.queue_id AND m.id = t.id
                RETURNING t.claim_index, m.id, m.ttl, m.created_at, m.body, m.key_id, m.claim_count, m.message_group,
                          m.traceparent, m.tracestate),
            recorded AS (
                INSERT INTO claims (id, queue_id, ttl, grace, expires_at, message_ids)
                SELECT r.claim_id, r.queue_id, r.ttl, r.grace, now() + r.ttl * interval '1 second', h.ids
                FROM (SELECT claim_index, array_agg(id ORDER BY id) AS ids FROM claimed GROUP BY claim_index) h
                JOIN ranked r ON r.claim_index = h.claim_index)
            SELECT a.queue_id, a.claim_index, c.id, c.ttl, %2$s AS age, c.body, c.key_id, c.claim_count,
                   c.message_group, c.traceparent, c.tracestate, a.wait_default, a.ordering
            FROM asked a LEFT JOIN claimed c ON c.claim_index = a.claim_index
            ORDER BY a.claim_index, c.id"""
                    .formatted(
                            MARK_CLAIMED.formatted(
                                    "t.claim_id", "t.ttl", EXTENDED_LIFETIME.formatted("t.ttl + t.grace", "$7")),
                            AGE.formatted("c"),
                            FreeMessages.MAX_CLAIMS_OF_METADATA,
                            FreeMessages.lockOldest("w.queue_id", "w.wanted", "w.max_claims"),
                            WAIT_DEFAULT_OF_METADATA.formatted("q.metadata"),
                            GroupedMessages.orderingIs("ordering", Ordering.NONE));

    private static final String GET =
            """
            SELECT c.ttl AS claim_ttl, %1$s AS claim_age, m.id, m.ttl, %2$s AS age, m.body, m.key_id, m.claim_count,
                   m.message_group, m.traceparent, m.tracestate
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
    // A renewal that ends the claim sooner than it was to end tells the queue's waiting claims (QueueReady): their
    // timers are armed at the earliest claim end they read, which was this claim's old one; woken, they read the new
    // one. The claim's old end is read through a second probe of its primary key (o, the row as the statement found
    // it). A renewal that lengthens the claim tells nobody: a timer armed too early only costs an empty claim.
    private static final String RENEW =
            """
            WITH c AS (
                UPDATE claims c
                SET ttl = $4, grace = COALESCE($5, c.grace), created_at = now(),
                    expires_at = now() + $4::integer * interval '1 second'
                FROM queues q JOIN claims o ON o.queue_id = q.id AND o.id = $3
                WHERE q.project = $1 AND q.name = $2 AND c.queue_id = q.id AND c.id = $3 AND c.expires_at > now()
                RETURNING c.queue_id, c.id, c.message_ids, c.ttl, c.grace, c.expires_at, o.expires_at AS was_until,
                          q.wake_until),
            renewed AS (
                UPDATE messages m
                SET claim_expires_at = (SELECT expires_at FROM c),
                    ttl = %1$s,
                    expires_at = m.created_at + %1$s * interval '1 second'
                WHERE m.queue_id = (SELECT queue_id FROM c) AND m.id = ANY((SELECT message_ids FROM c)::bigint[])
                  AND m.claim_id IS NOT DISTINCT FROM $3 AND m.expires_at > now()
                RETURNING m.id),
            %2$s
            SELECT count(*) AS claims, %3$s AS waiters_told FROM c"""
                    .formatted(
                            EXTENDED_LIFETIME.formatted("(SELECT ttl + grace FROM c)", "$6"),
                            QueueReady.cte(
                                    "waiters_told", "c", "c.expires_at < c.was_until", "$1", "$2", "1", "c.wake_until"),
                            QueueReady.told("waiters_told"));

    // Releasing ends the claim now rather than deleting it: its messages are free at once (a claim takes
    // messages of ended claims), and the sweeper then frees or dead-letters them like those of any
    // expired claim. As RENEW: primary-key probes only.
    // The replicas waiting for the queue's messages are told how many came free (see QueueReady).
    private static final String RELEASE =
            """
            WITH c AS (
                UPDATE claims c SET expires_at = now()
                FROM queues q
                WHERE q.project = $1 AND q.name = $2 AND c.queue_id = q.id AND c.id = $3 AND c.expires_at > now()
                RETURNING c.queue_id, c.id, c.message_ids, q.wake_until),
            freed AS (
                UPDATE messages m SET claim_expires_at = now()
                WHERE m.queue_id = (SELECT queue_id FROM c) AND m.id = ANY((SELECT message_ids FROM c)::bigint[])
                  AND m.claim_id IS NOT DISTINCT FROM $3
                RETURNING m.id),
            %s
            SELECT %s AS waiters_told"""
                    .formatted(
                            QueueReady.cte(
                                    "waiters_told",
                                    "c",
                                    "true",
                                    "$1",
                                    "$2",
                                    "(SELECT count(*) FROM freed)",
                                    "c.wake_until"),
                            QueueReady.told("waiters_told"));

    // Releasing some messages of a live claim moves them to a claim of their own ($5, a new id never shown) that has
    // ended already: from then on they are what the messages of any ended claim are. A claim takes them at once, or,
    // with a delay ($6 seconds), once it has passed (visible_at, as a delayed post; without a delay visible_at is left
    // as it is). Their claim count is kept, so a message claimed as often as its queue's dead-letter rule allows is no
    // longer taken, and the sweeper settles the ended claim as any other: it frees what it holds, or moves it to the
    // dead-letter queue. The claim itself ($3) keeps the others, and is not changed: its reads, renewals and
    // releases find only the rows that still name it. Ids ($4) that the claim does not hold (any longer) are passed
    // over. One row: whether the claim was found live. The named rows are reached by primary-key probes; two
    // releases naming the same rows in another order may deadlock, and the one PostgreSQL aborts changed nothing.
    // The release tells the queue's waiting claims (QueueReady), with a delay too: without one they take the messages
    // at once; with one, a woken waiter finds nothing, reads the queue's next due time again (WaitStore, which sees
    // delayed rows of ended claims) and arms its timer for it. A delayed release wakes one waiter, not one per message.
    private static final String RELEASE_MESSAGES =
            """
            WITH c AS (
                SELECT c.queue_id, q.wake_until
                FROM queues q JOIN claims c ON c.queue_id = q.id AND c.id = $3 AND c.expires_at > now()
                WHERE q.project = $1 AND q.name = $2),
            released AS (
                UPDATE messages m
                SET claim_id = $5, claim_expires_at = now(),
                    visible_at = CASE WHEN $6::integer > 0 THEN now() + $6::integer * interval '1 second'
                                      ELSE m.visible_at END
                WHERE m.queue_id = (SELECT queue_id FROM c) AND m.id = ANY($4::bigint[])
                  AND m.claim_id IS NOT DISTINCT FROM $3 AND m.claim_expires_at > now() AND m.expires_at > now()
                RETURNING m.id),
            ended AS (
                INSERT INTO claims (id, queue_id, ttl, grace, expires_at, message_ids)
                SELECT $5, c.queue_id, 0, 0, now(), ARRAY(SELECT id FROM released ORDER BY id)
                FROM c
                WHERE EXISTS (SELECT 1 FROM released)),
            %s
            SELECT count(*) AS claims, %s AS waiters_told FROM c"""
                    .formatted(
                            QueueReady.cte(
                                    "waiters_told",
                                    "c",
                                    "true",
                                    "$1",
                                    "$2",
                                    "CASE WHEN $6::integer = 0 THEN (SELECT count(*) FROM released)"
                                            + " ELSE LEAST((SELECT count(*) FROM released), 1) END",
                                    "c.wake_until"),
                            QueueReady.told("waiters_told"));

    private final MessageCipher cipher;

    public ClaimStore(MessageCipher cipher) {
        this.cipher = cipher;
    }

    /** A claim to take: the queue it takes from, its id, how many messages it asks for, and its terms. */
    public record Request(PlacedQueue queue, UUID id, int limit, ClaimTerms terms) {}

    /**
     * What a claim statement took: for each claim, its messages that open, oldest first (empty: its queue is missing);
     * and, per queue, the rows it took that do not open (they are still claimed: set them aside before answering).
     */
    public record Taken(
            List<Optional<List<Message>>> answers,
            List<Integer> waitDefaults,
            List<Ordering> orderings,
            List<Unreadable> unreadable) {

        /** Each claim's answer with its queue's {@code _claim_wait_seconds} and ordering, in the claims' order. */
        public List<Claimed> claims() {
            List<Claimed> claims = new ArrayList<>(answers.size());
            for (int i = 0; i < answers.size(); i++) {
                claims.add(new Claimed(answers.get(i), waitDefaults.get(i), orderings.get(i)));
            }
            return claims;
        }
    }

    /**
     * One claim's answer: its messages (empty: its queue is missing), its queue's {@code _claim_wait_seconds} (null
     * when the queue sets none, or is missing), and its queue's ordering: a claim sent with a statement of another
     * ordering took nothing, and must be sent again with the statement of this one.
     */
    public record Claimed(Optional<List<Message>> messages, Integer waitDefault, Ordering ordering) {}

    /** Rows of queue {@code queueId} ({@code queue}) that a claim statement took and that do not open, held by claims {@code holders}. */
    public record Unreadable(PlacedQueue queue, long queueId, List<MessageRows.Unopened> rows, UUID[] holders) {}

    /**
     * Takes every claim in one statement on {@code db}, which every claim's queue is on: for each, the oldest free
     * messages of its queue left by the claims before it on that queue, oldest first (none when nothing was left free
     * for it), in the claims' order; a claim's answer is empty when its queue is missing.
     */
    public Uni<Taken> create(SqlClient db, List<Request> claims, int maxMessageTtl) {
        Claims taking = new Claims(claims, maxMessageTtl);
        return db.preparedQuery(taking.alone() ? CREATE_ONE : CREATE)
                .execute(taking.parameters())
                .map(rows -> taken(rows, claims));
    }

    /**
     * Takes one claim on a {@code "fair"} queue, alone in its statement: two claims of one statement could be handed
     * the same turns. (Claims on {@code "fifo"} queues: {@link FifoClaimStore}.)
     */
    public Uni<Taken> createFair(Request claim, int maxMessageTtl) {
        List<Request> claims = List.of(claim);
        Claims taking = new Claims(claims, maxMessageTtl);
        return DatabaseFailures.retriedOnConflict(
                        claim.queue().db().preparedQuery(CREATE_FAIR).execute(taking.parameters()))
                .map(rows -> taken(rows, claims));
    }

    /**
     * What a claim statement takes. The record owns the order of the parameters of both forms: one claim alone
     * ({@link #CREATE_ONE}) binds its queue, id, limit and terms ($1 to $6) as scalars, several ({@link #CREATE}) one
     * array of each ($1 to $6); both the max-message-ttl ($7).
     */
    private record Claims(List<Request> claims, int maxMessageTtl) {

        boolean alone() {
            return claims.size() == 1;
        }

        Tuple parameters() {
            if (alone()) {
                Request claim = claims.get(0);
                return Tuple.from(List.of(
                        claim.queue().project(),
                        claim.queue().storedName(),
                        claim.id(),
                        claim.limit(),
                        claim.terms().ttl(),
                        claim.terms().grace(),
                        maxMessageTtl));
            }
            String[] projects = new String[claims.size()];
            String[] names = new String[claims.size()];
            UUID[] ids = new UUID[claims.size()];
            Integer[] limits = new Integer[claims.size()];
            Integer[] ttls = new Integer[claims.size()];
            Integer[] graces = new Integer[claims.size()];
            for (int i = 0; i < claims.size(); i++) {
                Request claim = claims.get(i);
                projects[i] = claim.queue().project();
                names[i] = claim.queue().storedName();
                ids[i] = claim.id();
                limits[i] = claim.limit();
                ttls[i] = claim.terms().ttl();
                graces[i] = claim.terms().grace();
            }
            return Tuple.tuple()
                    .addArrayOfString(projects)
                    .addArrayOfString(names)
                    .addArrayOfUUID(ids)
                    .addArrayOfInteger(limits)
                    .addArrayOfInteger(ttls)
                    .addArrayOfInteger(graces)
                    .addInteger(maxMessageTtl);
        }
    }

    /**
     * Each claim's messages from the rows of a claim statement: rows come in the claims' order, each claim's oldest
     * first; a claim with no row, or whose row has no queue, has a missing queue.
     */
    Taken taken(RowSet<Row> rows, List<Request> claims) {
        List<List<Message>> taken = new ArrayList<>(Collections.nCopies(claims.size(), null));
        List<Integer> waitDefaults = new ArrayList<>(Collections.nCopies(claims.size(), null));
        List<Ordering> orderings = new ArrayList<>(Collections.nCopies(claims.size(), Ordering.NONE));
        Map<Long, UnreadableOfQueue> unreadable = null;
        MessageRows reader = null;
        int readerClaim = -1;
        List<MessageRows.Unopened> unopened = new ArrayList<>(1);
        for (Row row : rows) {
            Long queueId = row.getLong("queue_id");
            if (queueId == null) {
                continue; // the claim's queue does not exist
            }
            int claim = ((Number) row.getValue("claim_index")).intValue() - 1;
            List<Message> messages = taken.get(claim);
            if (messages == null) {
                messages = new ArrayList<>();
                taken.set(claim, messages);
                waitDefaults.set(claim, row.getInteger("wait_default"));
                Ordering ordering = Ordering.named(row.getString("ordering"));
                orderings.set(claim, ordering == null ? Ordering.NONE : ordering);
            }
            if (row.getLong("id") == null) {
                continue; // nothing was left free for it
            }
            if (claim != readerClaim) {
                reader = MessageRows.of(cipher, claims.get(claim).queue());
                readerClaim = claim;
            }
            Message message = reader.open(row, unopened);
            if (message != null) {
                messages.add(message); // rows come oldest first, so each claim's list is oldest first
            } else {
                if (unreadable == null) {
                    unreadable = new LinkedHashMap<>();
                }
                unreadable
                        .computeIfAbsent(
                                queueId,
                                id -> new UnreadableOfQueue(claims.get(claim).queue(), id))
                        .add(unopened.remove(0), claims.get(claim).id());
            }
        }
        List<Optional<List<Message>>> answers = new ArrayList<>(claims.size());
        for (List<Message> messages : taken) {
            answers.add(Optional.ofNullable(messages));
        }
        return new Taken(
                answers,
                waitDefaults,
                orderings,
                unreadable == null
                        ? List.of()
                        : unreadable.values().stream()
                                .map(UnreadableOfQueue::toUnreadable)
                                .toList());
    }

    /** The unreadable rows of one queue, gathered while a claim statement's rows are read. */
    private static final class UnreadableOfQueue {
        private final PlacedQueue queue;
        private final long queueId;
        private final List<MessageRows.Unopened> rows = new ArrayList<>();
        private final Set<UUID> holders = new LinkedHashSet<>();

        UnreadableOfQueue(PlacedQueue queue, long queueId) {
            this.queue = queue;
            this.queueId = queueId;
        }

        void add(MessageRows.Unopened row, UUID holder) {
            rows.add(row);
            holders.add(holder);
        }

        Unreadable toUnreadable() {
            return new Unreadable(queue, queueId, List.copyOf(rows), holders.toArray(UUID[]::new));
        }
    }

    /** A live claim with its live messages that open, and the rows of it that do not. */
    public record Found(Claim claim, List<MessageRows.Unopened> unreadable) {}

    // The console's view of a queue's claims in flight, oldest first, at most $3: found through the claims' primary key
    // (queue_id, id) under the queue's id, so an idle queue costs one index probe.
    private static final String LIVE =
            """
            SELECT c.id, c.ttl, c.grace, %s AS age, ceil(extract(epoch FROM c.expires_at - now()))::bigint AS remaining,
                   cardinality(c.message_ids) AS messages
            FROM queues q
            JOIN claims c ON c.queue_id = q.id AND c.expires_at > now()
            WHERE q.project = $1 AND q.name = $2
            ORDER BY c.created_at, c.id
            LIMIT $3"""
                    .formatted(AGE.formatted("c"));

    /** The queue's live claims, oldest first, at most {@code limit}. */
    public Uni<List<LiveClaim>> live(PlacedQueue queue, int limit) {
        return queue.db()
                .preparedQuery(LIVE)
                .execute(Tuple.of(queue.project(), queue.storedName(), limit))
                .map(rows -> {
                    List<LiveClaim> live = new ArrayList<>(rows.size());
                    for (Row row : rows) {
                        live.add(new LiveClaim(
                                row.getUUID("id"),
                                row.getInteger("ttl"),
                                row.getInteger("grace"),
                                row.getLong("age"),
                                row.getLong("remaining"),
                                row.getInteger("messages")));
                    }
                    return live;
                });
    }

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

    // Renewing and releasing lock the claim's row, then its messages; the sweeper, ending other claims, may hold one of
    // those messages (locked as the newest version of a row it meant to free) and wait for a row of ours: PostgreSQL
    // aborts one of the two, and an aborted renewal or release changed nothing, so it runs again.

    /** Renews a live claim from now with new terms ({@code grace} null keeps the old one); false if none. */
    public Uni<Boolean> renew(PlacedQueue queue, UUID claimId, int ttl, Integer grace, int maxMessageTtl) {
        return DatabaseFailures.retriedOnConflict(queue.db()
                        .preparedQuery(RENEW)
                        .execute(Tuple.from(Arrays.asList(
                                queue.project(), queue.storedName(), claimId, ttl, grace, maxMessageTtl))))
                .map(rows -> rows.iterator().next().getLong("claims") > 0);
    }

    /**
     * Releases the messages {@code ids} of a live claim, free at once or after {@code delay} seconds; ids the claim
     * does not hold are passed over. False when there is no such live claim.
     */
    public Uni<Boolean> releaseMessages(PlacedQueue queue, UUID claimId, long[] ids, int delay) {
        Long[] boxed = Arrays.stream(ids).boxed().toArray(Long[]::new);
        return DatabaseFailures.retriedOnConflict(queue.db()
                        .preparedQuery(RELEASE_MESSAGES)
                        .execute(Tuple.tuple()
                                .addString(queue.project())
                                .addString(queue.storedName())
                                .addUUID(claimId)
                                .addArrayOfLong(boxed)
                                .addUUID(UUID.randomUUID())
                                .addInteger(delay)))
                .map(rows -> rows.iterator().next().getLong("claims") > 0);
    }

    /** Ends the claim now; its messages are free at once. */
    public Uni<Void> release(PlacedQueue queue, UUID claimId) {
        return DatabaseFailures.retriedOnConflict(queue.db()
                        .preparedQuery(RELEASE)
                        .execute(Tuple.of(queue.project(), queue.storedName(), claimId)))
                .replaceWithVoid();
    }
}
