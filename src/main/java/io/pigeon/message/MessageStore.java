package io.pigeon.message;

import io.pigeon.dispatch.NotificationFanOut;
import io.pigeon.dispatch.NotificationSettings;
import io.pigeon.encryption.MessageCipher;
import io.pigeon.queue.Ordering;
import io.pigeon.queue.PlacedQueue;
import io.pigeon.queue.QueueName;
import io.pigeon.quota.Quotas;
import io.pigeon.storage.DatabaseFailures;
import io.pigeon.storage.QueueRows;
import io.pigeon.waiting.QueueReady;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.RowSet;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * The SQL of messages. Every statement names the queue by project and name, so one project can never
 * reach another's rows, and each request is one statement (one round trip). Time is always the
 * database's {@code now()}.
 */
@ApplicationScoped
public class MessageStore {

    /** A message's age in whole seconds, by the database clock. */
    static final String AGE = "floor(extract(epoch FROM now() - m.created_at))::bigint";

    /** Held by a live claim. */
    public static final String CLAIMED = "(m.claim_id IS NOT NULL AND m.claim_expires_at > now())";

    /**
     * A post's guards, on the queue's metadata {@code %1$s}: its bodies are sealed exactly when the queue asks for
     * encryption ({@code %2$s} is the key id of sealed bodies, null for bodies in clear), else the statement fails
     * whole with SQLSTATE {@value #SEALING_MISMATCH} and the caller posts again, the other way; and a queue that
     * deduplicates by content ({@code _content_based_deduplication}) is posted to only in a deduplicating transaction
     * (one that took its keys, marked by {@link PostKeyStore#SETTINGS}), else the statement fails whole with SQLSTATE
     * {@value #DEDUPLICATION_NEEDED} and the caller posts again through the keys. The application cannot know the
     * queue's settings before the statement that reads them.
     */
    public static final String SEALED_AS_THE_QUEUE_ASKS =
            """
            (COALESCE((%1$s->'_enable_encrypt_messages')::jsonb = 'true'::jsonb, false) = (%2$s::text IS NOT NULL)
             OR pigeon_refuse('ENC', 'the queue asks for its messages to be sealed, or no longer does'))
            AND (NOT COALESCE((%1$s->'_content_based_deduplication')::jsonb = 'true'::jsonb, false)
                 OR current_setting('pigeon.deduplicating', true) = 'on'
                 OR pigeon_refuse('DDP', 'the queue deduplicates its messages by content'))""";

    /** The SQLSTATE of a post refused because its queue deduplicates by content (see SEALED_AS_THE_QUEUE_ASKS). */
    static final String DEDUPLICATION_NEEDED = "PQDDP";

    /** The name a notification gives: the queue's ($2), or the topic's, without the prefix it is stored under. */
    private static final String SHOWN_NAME = shownName("$2::text");

    /** The name a notification gives of the queue stored under {@code name} (a topic's without its prefix). */
    private static String shownName(String name) {
        return "ltrim(" + name + ", '" + QueueName.TOPIC_PREFIX + "')";
    }

    /** The CTE of a post statement that tells the replicas waiting for its queue's messages (see QueueReady). */
    private static final String WAITERS_TOLD = "waiters_told";

    /** The SQLSTATE of a post whose sealing did not match the queue's setting (nothing was stored). */
    static final String SEALING_MISMATCH = "PQENC";

    static final String POST =
            """
            WITH inserted AS (
                INSERT INTO messages (queue_id, client_id, ttl, body, expires_at, key_id, traceparent, tracestate)
                SELECT q.id, $3, t.ttl, t.body, now() + t.ttl * interval '1 second', $11, t.traceparent, t.tracestate
                FROM queues q,
                     unnest($4::int[], $5::text[], $15::text[], $16::text[])
                         WITH ORDINALITY AS t (ttl, body, traceparent, tracestate, ord)
                WHERE q.project = $1 AND q.name = $2 AND %s AND %s
                ORDER BY t.ord
                RETURNING id, ttl, body, visible_at, key_id, traceparent),
            %s,
            %s
            SELECT id, %s AS notifications, %s AS sockets_told, %s AS waiters_told FROM inserted WHERE %s"""
                    .formatted(
                            NotificationFanOut.WITHIN_MESSAGE_QUOTA.formatted("$6"),
                            SEALED_AS_THE_QUEUE_ASKS.formatted("q.metadata", "$11"),
                            NotificationFanOut.ctes(
                                    "(SELECT metadata FROM queues WHERE project = $1 AND name = $2)",
                                    "$10",
                                    SHOWN_NAME,
                                    "$12",
                                    "$14"),
                            QueueReady.cte(
                                    WAITERS_TOLD,
                                    "queues w",
                                    "w.project = $1 AND w.name = $2",
                                    "$1",
                                    "$2",
                                    "(SELECT count(*) FROM inserted)",
                                    "w.wake_until"),
                            NotificationFanOut.QUEUED,
                            NotificationFanOut.SOCKETS_TOLD,
                            QueueReady.told(WAITERS_TOLD),
                            NotificationFanOut.WITHIN_DELIVERY_QUOTAS.formatted("$7", "$8", "$9", "$13"));

    /**
     * A listing steps over at most this many rows of the queue per request, whatever its filters skip (the caller's
     * own messages without echo, claimed or delayed ones): a page that ran out of them is short, or empty, and its
     * next link starts after the last row it stepped over.
     */
    static final int LIST_WINDOW = 1000;

    // The window: the next $9 rows after the marker (live or not), its last id and size; then the page, within it.
    private static final String LIST =
            """
            SELECT q.id AS queue_id, w.last_id AS window_last_id, w.size AS window_size,
                   m.id, m.ttl, m.age, m.body, m.key_id, m.claim_count, m.message_group, m.traceparent, m.tracestate
            FROM queues q
            CROSS JOIN LATERAL (
                SELECT max(r.id) AS last_id, count(*) AS size
                FROM (SELECT m.id FROM messages m WHERE m.queue_id = q.id AND m.id > $3 ORDER BY m.id LIMIT $9) r) w
            LEFT JOIN LATERAL (
                SELECT m.id, m.ttl, %s AS age, m.body, m.key_id, m.claim_count, m.message_group, m.traceparent,
                       m.tracestate
                FROM messages m
                WHERE m.queue_id = q.id AND m.id > $3 AND m.id <= w.last_id AND m.expires_at > now()
                  AND ($5 OR m.client_id <> $4)
                  AND ($6 OR NOT %s)
                  AND ($7 OR %s)
                ORDER BY m.id
                LIMIT $8) m ON true
            WHERE q.project = $1 AND q.name = $2
            ORDER BY m.id"""
                    .formatted(AGE, CLAIMED, FreeMessages.VISIBLE);

    // v2: the queue is created on first post, and its reserved attributes bound the document's size and
    // give the defaults for TTL and delay, all in the one statement. A queue created concurrently by
    // another transaction after this statement's snapshot is seen by neither branch of q: then max_size
    // comes back null and the caller retries. The insert runs only when the queue is not there: an
    // INSERT … ON CONFLICT that finds the queue still draws a value from the identity sequence and makes a
    // speculative insertion, on every post. This is the statement of a post alone, the common case at one
    // client: its client id ($3), document size ($9) and queue are scalars, which costs PostgreSQL least. It is also
    // SQS's send (decision 0019), which never creates its queue ($22 false: a queue missing answers a null max_size)
    // and stores each message's attributes ($21, one element per message; shorter or empty: none, as a Zaqar post's).
    // Each message's group ($23, null: none) goes in message_group (migration V30), which a queue ordered by groups
    // claims by; a FIFO send runs it inside its deduplicating transaction. Each message's trace context ($24
    // traceparent, $25 tracestate, null: none; migration V35) is stored with it.
    static final String POST_CREATING_QUEUE =
            """
            WITH known AS (
                SELECT id, metadata, wake_until FROM queues WHERE project = $1 AND name = $2),
            created AS (
                INSERT INTO queues (project, name) SELECT $1, $2 WHERE $22 AND NOT EXISTS (SELECT 1 FROM known)
                ON CONFLICT (project, name) DO NOTHING
                RETURNING id, metadata),
            q AS (
                SELECT id, metadata FROM known
                UNION ALL
                SELECT id, metadata FROM created
                LIMIT 1),
            target AS (
                SELECT id,
                       COALESCE((metadata->>'_max_messages_post_size')::int, $7) AS max_size,
                       COALESCE((metadata->>'_default_message_ttl')::int, $8) AS default_ttl,
                       COALESCE((metadata->>'_default_message_delay')::int, 0) AS default_delay
                FROM q
                WHERE %s AND %s),
            inserted AS (
                INSERT INTO messages (queue_id, client_id, ttl, body, expires_at, visible_at, key_id, sqs_attributes,
                                      message_group, traceparent, tracestate)
                SELECT t.id, $3, COALESCE(n.ttl, t.default_ttl), n.body,
                       now() + COALESCE(n.ttl, t.default_ttl) * interval '1 second',
                       CASE WHEN COALESCE(n.delay, t.default_delay) > 0
                            THEN now() + COALESCE(n.delay, t.default_delay) * interval '1 second' END,
                       $17, n.attributes, n.message_group, n.traceparent, n.tracestate
                FROM target t, unnest($4::int[], $5::int[], $6::text[], $21::text[], $23::text[], $24::text[],
                                      $25::text[])
                                   WITH ORDINALITY AS n (ttl, delay, body, attributes, message_group, traceparent,
                                                         tracestate, ord)
                WHERE $9 <= t.max_size
                ORDER BY n.ord
                RETURNING id, ttl, body, visible_at, key_id, traceparent),
            %s,
            %s
            SELECT (SELECT max_size FROM target) AS max_size, ARRAY(SELECT id FROM inserted ORDER BY id) AS ids,
                   %s AS notifications, %s AS sockets_told, %s AS waiters_told
            WHERE (NOT EXISTS (SELECT 1 FROM created) OR (SELECT count(*) FROM queues WHERE project = $1) < $10
                   OR pigeon_refuse('403', $11))
              AND %s"""
                    .formatted(
                            NotificationFanOut.WITHIN_MESSAGE_QUOTA.formatted("$12"),
                            SEALED_AS_THE_QUEUE_ASKS.formatted("metadata", "$17"),
                            NotificationFanOut.ctes("(SELECT metadata FROM q)", "$16", SHOWN_NAME, "$18", "$20"),
                            // A queue this statement creates has no lease: only a known one can have waiters.
                            QueueReady.cte(
                                    WAITERS_TOLD,
                                    "known k",
                                    "true",
                                    "$1",
                                    "$2",
                                    "(SELECT count(*) FROM inserted)",
                                    "k.wake_until"),
                            NotificationFanOut.QUEUED,
                            NotificationFanOut.SOCKETS_TOLD,
                            QueueReady.told(WAITERS_TOLD),
                            NotificationFanOut.WITHIN_DELIVERY_QUOTAS.formatted("$13", "$14", "$15", "$19"));

    /*
     * Posts of several callers (see Coalescer), to any queues of the database, possibly of several projects, in one
     * statement: POST_CREATING_QUEUE for each distinct queue at once, every rule per queue, per project or per post as
     * there. Each post ($1 to $5: one element per post) names its queue by project and name, always as a pair, so a
     * post never reaches another project's queue of the same name; each message ($6 to $9: one element per message)
     * names its post by ordinal. A queue missing is created (creation only when missing, as for a post alone, in one
     * order of names, so that two statements creating the same queues cannot deadlock), within its project's queue
     * quota counting every queue the statement creates; one created concurrently by another transaction after this
     * statement's snapshot is in neither known nor created: its posts are answered a null max_size and the caller
     * retries them. A post over its own queue's size limit stores none of its messages, whatever the others do. The
     * message quota is checked per queue, the sealing per post against its queue's setting, the notifications per
     * post and the delivery quotas per project; the messages of each queue notify that queue's subscriptions only.
     * Answers: the max_size of each post's queue in post order (null: not stored, retry) and every id in insertion
     * order, which is the order of posts and of each post's messages (ORDER BY n.ord). SQS's sends share it: a post
     * whose $23 is false never creates its queue (a queue is created only when some post to it may create it; one
     * missing answers a null max_size), and each message stores its SQS attributes ($22, null for none; empty when
     * no post has any). Each message's group is $24 (null: none), its trace context $25 and $26 (traceparent and
     * tracestate, null: none).
     *
     * The generic plan (the pool's plan_cache_mode=force_generic_plan), checked with EXPLAIN EXECUTE on PostgreSQL 15
     * holding 10,000 queues of 2,000 projects, 3,000 subscriptions, 50,000 messages and 5,800 quota breaches: each
     * distinct queue found by an Index Scan of queues_project_name_key (project, name) inside the LATERAL LIMIT 1,
     * each target's subscriptions by an Index Scan of subscriptions_project_source_subscriber_key (project, source),
     * a created queue's project counted by a Bitmap Index Scan of queues_project_name_key, the quota breaches read by
     * their primary key; the posts and messages joined to their queues by hash joins of the CTEs, no scan of all
     * queues or subscriptions. The names in q are COLLATE "default" so that they meet the subscriptions' index: a
     * column of queues (collation "C") would win the comparison and turn the subscriptions' lookup into a scan. With
     * a single queue in the database the planner scans it, as it does for POST_CREATING_QUEUE.
     */
    private static final String POST_CREATING_QUEUES =
            """
            WITH post AS (
                SELECT * FROM unnest($1::text[], $2::text[], $3::uuid[], $4::int[], $5::text[], $23::boolean[])
                              WITH ORDINALITY AS p (project, name, client_id, document_size, key_id, creates, post)),
            wanted AS (
                SELECT project, name, bool_or(creates) AS creates FROM post GROUP BY project, name),
            known AS (
                SELECT w.project, w.name, k.id, k.metadata, k.wake_until
                FROM wanted w
                CROSS JOIN LATERAL (SELECT id, metadata, wake_until FROM queues WHERE project = w.project AND name = w.name
                                    LIMIT 1) k),
            created AS (
                INSERT INTO queues (project, name)
                SELECT w.project, w.name FROM wanted w
                WHERE w.creates AND NOT EXISTS (SELECT 1 FROM known k WHERE k.project = w.project AND k.name = w.name)
                ORDER BY w.project, w.name
                ON CONFLICT (project, name) DO NOTHING
                RETURNING id, metadata, project, name),
            q AS (
                SELECT project, name, id, metadata FROM known
                UNION ALL
                SELECT project COLLATE "default", name COLLATE "default", id, metadata FROM created),
            target AS (
                SELECT project, name, id, metadata,
                       COALESCE((metadata->>'_max_messages_post_size')::int, $10) AS max_size,
                       COALESCE((metadata->>'_default_message_ttl')::int, $11) AS default_ttl,
                       COALESCE((metadata->>'_default_message_delay')::int, 0) AS default_delay
                FROM q
                WHERE %s),
            routed AS (
                SELECT p.post, p.client_id, p.key_id, p.document_size <= t.max_size AS fits,
                       t.id, t.max_size, t.default_ttl, t.default_delay
                FROM post p JOIN target t ON t.project = p.project AND t.name = p.name
                WHERE %s),
            inserted AS (
                INSERT INTO messages (queue_id, client_id, ttl, body, expires_at, visible_at, key_id, sqs_attributes,
                                      message_group, traceparent, tracestate)
                SELECT r.id, r.client_id, COALESCE(n.ttl, r.default_ttl), n.body,
                       now() + COALESCE(n.ttl, r.default_ttl) * interval '1 second',
                       CASE WHEN COALESCE(n.delay, r.default_delay) > 0
                            THEN now() + COALESCE(n.delay, r.default_delay) * interval '1 second' END,
                       r.key_id, n.attributes, n.message_group, n.traceparent, n.tracestate
                FROM routed r
                JOIN unnest($6::int[], $7::int[], $8::int[], $9::text[], $22::text[], $24::text[], $25::text[],
                            $26::text[])
                     WITH ORDINALITY AS n (post, ttl, delay, body, attributes, message_group, traceparent, tracestate,
                                           ord)
                  ON n.post = r.post
                WHERE r.fits
                ORDER BY n.ord
                RETURNING id, queue_id, ttl, body, visible_at, key_id, traceparent),
            stored_posts AS (
                SELECT r.id AS queue_id, count(*) AS messages
                FROM routed r JOIN unnest($6::int[]) AS n (post) ON n.post = r.post
                WHERE r.fits
                GROUP BY r.post, r.id),
            %s,
            %s
            SELECT ARRAY(SELECT r.max_size FROM post p LEFT JOIN routed r ON r.post = p.post ORDER BY p.post) AS max_sizes,
                   ARRAY(SELECT id FROM inserted ORDER BY id) AS ids,
                   %s AS notifications, %s AS sockets_told, %s AS waiters_told
            WHERE (NOT EXISTS (SELECT 1 FROM created)
                   OR NOT EXISTS (SELECT 1 FROM (SELECT project, count(*) AS queues FROM created GROUP BY project) c
                                  WHERE (SELECT count(*) FROM queues WHERE project = c.project) + c.queues > $12)
                   OR pigeon_refuse('403', $13))
              AND %s"""
                    .formatted(
                            NotificationFanOut.WITHIN_MESSAGE_QUOTA_ACROSS_QUEUES.formatted("$14"),
                            SEALED_AS_THE_QUEUE_ASKS.formatted("t.metadata", "p.key_id"),
                            NotificationFanOut.ctesAcrossQueues("target", "$18", shownName("t.name"), "$19", "$21"),
                            // Each known queue with a lease and messages stored (a created one has no lease).
                            QueueReady.cte(
                                    WAITERS_TOLD,
                                    "known k JOIN (SELECT queue_id, sum(messages) AS messages FROM stored_posts "
                                            + "GROUP BY queue_id) s ON s.queue_id = k.id",
                                    "true",
                                    "k.project",
                                    "k.name",
                                    "s.messages",
                                    "k.wake_until"),
                            NotificationFanOut.QUEUED,
                            NotificationFanOut.SOCKETS_TOLD,
                            QueueReady.told(WAITERS_TOLD),
                            NotificationFanOut.WITHIN_DELIVERY_QUOTAS_ACROSS_QUEUES.formatted(
                                    "stored_posts", "$15", "$16", "$17", "$20"));

    // A pop takes what a claim of the queue's ordering would take (GroupedMessages): only the branch of the CASE that
    // the queue's ordering names runs (each is a subquery PostgreSQL evaluates when it is first needed).
    private static final String POP =
            """
            WITH q AS (SELECT id, %3$s AS max_claims, COALESCE(metadata->>'_ordering', 'none') AS ordering
                       FROM queues WHERE project = $1 AND name = $2)
            DELETE FROM messages m
            WHERE m.queue_id = (SELECT id FROM q)
              AND m.id = ANY(CASE (SELECT ordering FROM q) WHEN 'fifo' THEN %4$s WHEN 'fair' THEN %5$s ELSE %2$s END)
            RETURNING m.id, m.ttl, %1$s AS age, m.body, m.key_id, m.queue_id, m.client_id, m.created_at, m.expires_at,
                      m.claim_count + 1 AS claim_count, m.message_group, m.traceparent, m.tracestate"""
                    .formatted(
                            AGE,
                            GroupedMessages.free(
                                    Ordering.NONE, "(SELECT id FROM q)", "$3", "(SELECT max_claims FROM q)"),
                            FreeMessages.MAX_CLAIMS_OF_METADATA,
                            GroupedMessages.free(
                                    Ordering.FIFO, "(SELECT id FROM q)", "$3", "(SELECT max_claims FROM q)"),
                            GroupedMessages.free(
                                    Ordering.FAIR, "(SELECT id FROM q)", "$3", "(SELECT max_claims FROM q)"));

    private static final String PURGE =
            """
            WITH q AS (SELECT id FROM queues WHERE project = $1 AND name = $2),
            %s
            SELECT count(*) AS purged FROM messages_gone"""
                    .formatted(QueueRows.deleteAllCountingMessages("ARRAY(SELECT id FROM q)"));

    private static final String GET_BY_IDS =
            """
            SELECT m.id, m.ttl, %s AS age, m.body, m.key_id, m.claim_count, m.message_group, m.traceparent,
                   m.tracestate
            FROM queues q JOIN messages m ON m.queue_id = q.id
            WHERE q.project = $1 AND q.name = $2 AND m.id = ANY($3::bigint[]) AND m.expires_at > now()
            ORDER BY m.id"""
                    .formatted(AGE);

    // The target row is locked first, so the claim state the rules are decided on is the one the delete
    // acts on; a claimed message is deleted only by its own live claim. A delete that unblocks a fifo group tells the
    // queue's waiters (UnblockedGroups).
    private static final String DELETE_ONE =
            """
            WITH target AS (
                SELECT m.queue_id, m.id, m.claim_id, %1$s AS claimed, q.wake_until, q.metadata->>'_ordering' AS ordering
                FROM queues q JOIN messages m ON m.queue_id = q.id
                WHERE q.project = $1 AND q.name = $2 AND m.id = $3 AND m.expires_at > now()
                FOR UPDATE OF m),
            deleted AS (
                DELETE FROM messages d USING target t
                WHERE d.queue_id = t.queue_id AND d.id = t.id
                  AND CASE WHEN $4::uuid IS NULL THEN NOT t.claimed ELSE t.claimed AND t.claim_id = $4::uuid END
                RETURNING d.id, %2$s),
            %3$s
            SELECT t.claimed, EXISTS (SELECT 1 FROM deleted) AS deleted, %4$s AS waiters_told
            FROM target t"""
                    .formatted(
                            CLAIMED,
                            UnblockedGroups.returned("d"),
                            UnblockedGroups.told(
                                    WAITERS_TOLD,
                                    "target t",
                                    "t.ordering",
                                    "$1",
                                    "$2",
                                    "t.queue_id",
                                    "deleted",
                                    "t.wake_until"),
                            QueueReady.told(WAITERS_TOLD));

    // How many rows went; a delete that unblocks a fifo group tells the queue's waiters (UnblockedGroups).
    static final String DELETE_BY_IDS =
            """
            WITH q AS (SELECT id, wake_until, metadata->>'_ordering' AS ordering
                       FROM queues WHERE project = $1 AND name = $2),
            deleted AS (
                DELETE FROM messages m
                WHERE m.queue_id = (SELECT id FROM q) AND m.id = ANY($3::bigint[])
                RETURNING m.id, %s),
            %s
            SELECT (SELECT count(*) FROM deleted) AS deleted, %s AS waiters_told"""
                    .formatted(
                            UnblockedGroups.returned("m"),
                            UnblockedGroups.told(
                                    WAITERS_TOLD, "q", "q.ordering", "$1", "$2", "q.id", "deleted", "q.wake_until"),
                            QueueReady.told(WAITERS_TOLD));

    // Deletes of several callers, on one queue or several (of any projects), in one statement: which rows went, by the
    // ordinal of their queue among $1/$2, so that each caller is told its own count. Each distinct queue is looked up
    // once by its (project, name) key, and each id named is paired with its own queue's id, so a caller can never
    // delete a row of another queue whatever ids it names. The pairs are materialized so that the delete probes the
    // primary key with both columns: joined freely, with statistics that count few rows per queue, the generic plan
    // scanned each named queue's whole key range. Generic plans checked with 20,000 queues and a queue of 50,000
    // rows, and with a near-empty table: index scans of queues_project_name_key and messages_pkey only.
    // The queues whose fifo groups the delete unblocked tell their waiters (UnblockedGroups).
    private static final String DELETE_BY_IDS_SHARED =
            """
            WITH q AS (
                SELECT q.id, r.ord, q.project, q.name, q.wake_until, q.metadata->>'_ordering' AS ordering
                FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS r (project, name, ord)
                JOIN queues q ON q.project = r.project AND q.name = r.name),
            named AS MATERIALIZED (
                SELECT q.ord AS queue_ord, q.id AS queue_id, d.id
                FROM q JOIN unnest($3::int[], $4::bigint[]) AS d (queue_ord, id) ON d.queue_ord = q.ord),
            deleted AS (
                DELETE FROM messages m USING named n
                WHERE m.queue_id = n.queue_id AND m.id = n.id
                RETURNING n.queue_ord, m.id, %s),
            %s
            SELECT d.queue_ord, d.id, %s AS waiters_told FROM deleted d"""
                    .formatted(
                            UnblockedGroups.returned("m"),
                            UnblockedGroups.told(
                                    WAITERS_TOLD,
                                    "q",
                                    "q.ordering",
                                    "q.project",
                                    "q.name",
                                    "q.id",
                                    "deleted",
                                    "q.wake_until"),
                            QueueReady.told(WAITERS_TOLD));

    // A bulk delete that must name the claims of the claimed messages among its ids: the rows are locked first;
    // if one is held by a live claim not among $4, nothing is deleted.
    private static final String DELETE_BY_IDS_WITH_CLAIMS =
            """
            WITH target AS (
                SELECT m.queue_id, m.id, %1$s AND NOT (m.claim_id = ANY($4::uuid[])) AS refused, q.wake_until,
                       q.metadata->>'_ordering' AS ordering
                FROM queues q JOIN messages m ON m.queue_id = q.id
                WHERE q.project = $1 AND q.name = $2 AND m.id = ANY($3::bigint[]) AND m.expires_at > now()
                FOR UPDATE OF m),
            deleted AS (
                DELETE FROM messages d USING target t
                WHERE d.queue_id = t.queue_id AND d.id = t.id AND NOT EXISTS (SELECT 1 FROM target WHERE refused)
                RETURNING d.id, %2$s),
            %3$s
            SELECT EXISTS (SELECT 1 FROM target WHERE refused) AS refused, (SELECT count(*) FROM deleted) AS deleted,
                   %4$s AS waiters_told
            """
                    .formatted(
                            CLAIMED,
                            UnblockedGroups.returned("d"),
                            UnblockedGroups.told(
                                    WAITERS_TOLD,
                                    "(SELECT * FROM target LIMIT 1) t",
                                    "t.ordering",
                                    "$1",
                                    "$2",
                                    "t.queue_id",
                                    "deleted",
                                    "t.wake_until"),
                            QueueReady.told(WAITERS_TOLD));

    /**
     * Stats count at most this many live messages of a queue (and of its claimed ones): up to it the counts are exact,
     * beyond it the total is extrapolated from the density of live messages among the ids of that many oldest ones,
     * so that stats cost the same at 10,000 messages and at 10,000,000.
     */
    static final int EXACT_STATS_LIMIT = 10_000;

    // The head: the oldest live messages, at most $3 of them, counted (and their claimed and delayed ones), with the
    // last id seen;
    // the live claimed messages, at most $3, through the claim-deadline index; the oldest and newest messages.
    private static final String STATS =
            """
            SELECT h.total AS head_total, h.claimed AS head_claimed, h.delayed AS head_delayed, h.last_id AS head_last_id,
                   c.claimed AS claimed,
                   o.id AS oldest_id, o.age AS oldest_age, o.created_at AS oldest_created,
                   n.id AS newest_id, n.age AS newest_age, n.created_at AS newest_created
            FROM queues q
            CROSS JOIN LATERAL (
                SELECT count(*) AS total, count(*) FILTER (WHERE head.claimed) AS claimed,
                       count(*) FILTER (WHERE NOT head.claimed AND NOT head.visible) AS delayed, max(head.id) AS last_id
                FROM (SELECT m.id, %2$s AS claimed,
                             %3$s AS visible
                      FROM messages m
                      WHERE m.queue_id = q.id AND m.expires_at > now() ORDER BY m.id LIMIT $3) head) h
            CROSS JOIN LATERAL (
                SELECT count(*) AS claimed
                FROM (SELECT 1 FROM messages m
                      WHERE m.queue_id = q.id AND m.claim_id IS NOT NULL AND m.claim_expires_at > now()
                        AND m.expires_at > now() LIMIT $3) held) c
            LEFT JOIN LATERAL (
                SELECT m.id, %1$s AS age, m.created_at FROM messages m
                WHERE m.queue_id = q.id AND m.expires_at > now() ORDER BY m.id LIMIT 1) o ON true
            LEFT JOIN LATERAL (
                SELECT m.id, %1$s AS age, m.created_at FROM messages m
                WHERE m.queue_id = q.id AND m.expires_at > now() ORDER BY m.id DESC LIMIT 1) n ON true
            WHERE q.project = $1 AND q.name = $2"""
                    .formatted(AGE, CLAIMED, FreeMessages.VISIBLE);

    private final Quotas quotas;
    private final boolean confirmationRequired;
    /** Whether posts fan out to {@code mailto:} subscribers too, and which ({@link NotificationFanOut#mailMode}). */
    private final int mailSent;

    private final MessageCipher cipher;

    public MessageStore(Quotas quotas, NotificationSettings notificationSettings, MessageCipher cipher) {
        this.quotas = quotas;
        this.cipher = cipher;
        this.confirmationRequired = notificationSettings.requireConfirmation();
        this.mailSent = NotificationFanOut.mailMode(notificationSettings);
    }

    /**
     * What a post stored: the ids in request order, or none when the document exceeded {@code maxSize} (v2),
     * and how many subscription notifications it queued for the delivery engine.
     */
    public record Posted(Integer maxSize, long[] ids, long notifications) {}

    /** Whether a post failed only because its queue deduplicates by content: post it again through the keys. */
    public static boolean isDeduplicationNeeded(Throwable failure) {
        return DatabaseFailures.hasSqlState(failure, DEDUPLICATION_NEEDED::equals);
    }

    /** Whether a post failed only because its bodies were (not) sealed and the queue asks otherwise. */
    public static boolean isSealingMismatch(Throwable failure) {
        return DatabaseFailures.hasSqlState(failure, SEALING_MISMATCH::equals);
    }

    /**
     * One post of a creating post statement: its queue (the database it runs on and the project and name it is
     * stored under), the key its bodies are sealed with (null: in clear), who posts, its messages, and the size of
     * its document (0: unbounded); for an SQS send, each message's attributes as stored (null: none for any, or for
     * that message) and that the queue is never created by it (a queue missing: the post answers a null max size).
     */
    public record NewPost(
            PlacedQueue queue,
            String keyId,
            UUID clientId,
            List<NewMessage> messages,
            int documentSize,
            List<String> attributes,
            boolean createsQueue) {

        /** A Zaqar post: without attributes, creating its queue when missing. */
        public NewPost(PlacedQueue queue, String keyId, UUID clientId, List<NewMessage> messages, int documentSize) {
            this(queue, keyId, clientId, messages, documentSize, null, true);
        }

        /** Its bodies' and attributes' length in characters (their bytes when ASCII), without encoding them again. */
        int bodyLength() {
            int length = 0;
            for (NewMessage message : messages) {
                length += message.body().length();
            }
            if (attributes != null) {
                for (String text : attributes) {
                    length += text == null ? 0 : text.length();
                }
            }
            return length;
        }

        /** Message {@code i}'s attributes as stored, null for none. */
        String attributesOf(int i) {
            return attributes == null ? null : attributes.get(i);
        }
    }

    /**
     * v2: creates the queues if needed and inserts the messages of all {@code posts} (to any queues of one database,
     * that of their queues) in one statement, but none of a post whose {@code documentSize} exceeds its queue's own
     * post-size limit; what each post stored, in their order. A null {@code maxSize} in an answer means that post's
     * queue was being created concurrently and nothing of that post was stored: post it again. Each post's bodies are
     * sealed with its key, or in clear when it has none; see {@link #isSealingMismatch}. The notifications queued are
     * all counted in the first post's answer.
     */
    public Uni<List<Posted>> postCreatingQueue(
            List<NewPost> posts, boolean fromPigeon, int defaultMaxSize, int defaultTtl) {
        boolean alone = posts.size() == 1;
        return posts.get(0)
                .queue()
                .db()
                .preparedQuery(alone ? POST_CREATING_QUEUE : POST_CREATING_QUEUES)
                .execute(
                        alone
                                ? aloneParameters(posts.get(0), fromPigeon, defaultMaxSize, defaultTtl)
                                : sharedParameters(posts, fromPigeon, defaultMaxSize, defaultTtl))
                .map(rows -> alone
                        ? List.of(postedAlone(rows.iterator().next(), posts.get(0)))
                        : postedOf(rows.iterator().next(), posts));
    }

    /**
     * {@link #POST_CREATING_QUEUE}'s parameters, $1 to $25: the queue, its client id and document size as scalars; the
     * attributes ($21, empty for a post without), whether the queue may be created ($22), the messages' groups
     * ($23, one element per message, null: none) and their trace contexts ($24 traceparent, $25 tracestate, one
     * element per message, null: none) last.
     */
    private Tuple aloneParameters(NewPost post, boolean fromPigeon, int defaultMaxSize, int defaultTtl) {
        List<NewMessage> messages = post.messages();
        Integer[] ttls = new Integer[messages.size()];
        Integer[] delays = new Integer[messages.size()];
        String[] bodies = new String[messages.size()];
        String[] groups = new String[messages.size()];
        String[] traceparents = new String[messages.size()];
        String[] tracestates = new String[messages.size()];
        for (int i = 0; i < messages.size(); i++) {
            ttls[i] = messages.get(i).ttl();
            delays[i] = messages.get(i).delay();
            bodies[i] = messages.get(i).body();
            groups[i] = messages.get(i).group();
            traceparents[i] = messages.get(i).traceparent();
            tracestates[i] = messages.get(i).tracestate();
        }
        Tuple params = Tuple.of(post.queue().project(), post.queue().storedName(), post.clientId())
                .addArrayOfInteger(ttls)
                .addArrayOfInteger(delays)
                .addArrayOfString(bodies)
                .addInteger(defaultMaxSize)
                .addInteger(defaultTtl)
                .addInteger(post.documentSize())
                .addInteger(quotas.limits().maxQueuesPerProject())
                .addString(quotas.queues());
        return withFanOutGuards(params, quotas, confirmationRequired, post.keyId(), fromPigeon, mailSent)
                .addArrayOfString(
                        post.attributes() == null
                                ? new String[0]
                                : post.attributes().toArray(String[]::new))
                .addBoolean(post.createsQueue())
                .addArrayOfString(groups)
                .addArrayOfString(traceparents)
                .addArrayOfString(tracestates);
    }

    /**
     * {@link #POST_CREATING_QUEUES}'s parameters, $1 to $24: one element per post of its project, queue name, client
     * id, document size and key ($1 to $5); one per message of its post's ordinal (from 1), TTL, delay and body ($6 to
     * $9); then the defaults, the queue quota and the fan-out's guards, in the order the statement takes them; last
     * one per message of its attributes ($22, empty when no post has any), one per post of whether it may create
     * its queue ($23), one per message of its group ($24, null: none) and of its trace context ($25 traceparent, $26
     * tracestate, null: none).
     */
    private Tuple sharedParameters(List<NewPost> posts, boolean fromPigeon, int defaultMaxSize, int defaultTtl) {
        int count = posts.stream().mapToInt(post -> post.messages().size()).sum();
        String[] projects = new String[posts.size()];
        String[] names = new String[posts.size()];
        UUID[] clientIds = new UUID[posts.size()];
        Integer[] documentSizes = new Integer[posts.size()];
        String[] keyIds = new String[posts.size()];
        Integer[] ordinals = new Integer[count];
        Integer[] ttls = new Integer[count];
        Integer[] delays = new Integer[count];
        String[] bodies = new String[count];
        String[] groups = new String[count];
        String[] traceparents = new String[count];
        String[] tracestates = new String[count];
        boolean anyAttributes = posts.stream().anyMatch(post -> post.attributes() != null);
        String[] attributes = new String[anyAttributes ? count : 0];
        Boolean[] creates = new Boolean[posts.size()];
        int i = 0;
        for (int p = 0; p < posts.size(); p++) {
            NewPost post = posts.get(p);
            projects[p] = post.queue().project();
            names[p] = post.queue().storedName();
            clientIds[p] = post.clientId();
            documentSizes[p] = post.documentSize();
            keyIds[p] = post.keyId();
            creates[p] = post.createsQueue();
            for (int m = 0; m < post.messages().size(); m++) {
                NewMessage message = post.messages().get(m);
                ordinals[i] = p + 1;
                ttls[i] = message.ttl();
                delays[i] = message.delay();
                groups[i] = message.group();
                traceparents[i] = message.traceparent();
                tracestates[i] = message.tracestate();
                if (anyAttributes) {
                    attributes[i] = post.attributesOf(m);
                }
                bodies[i++] = message.body();
            }
        }
        return Tuple.tuple()
                .addArrayOfString(projects)
                .addArrayOfString(names)
                .addArrayOfUUID(clientIds)
                .addArrayOfInteger(documentSizes)
                .addArrayOfString(keyIds)
                .addArrayOfInteger(ordinals)
                .addArrayOfInteger(ttls)
                .addArrayOfInteger(delays)
                .addArrayOfString(bodies)
                .addInteger(defaultMaxSize)
                .addInteger(defaultTtl)
                .addInteger(quotas.limits().maxQueuesPerProject())
                .addString(quotas.queues())
                .addString(quotas.messages())
                .addInteger(quotas.limits().maxNotificationsPerPost())
                .addString(quotas.notifications())
                .addString(quotas.groups())
                .addBoolean(confirmationRequired)
                .addBoolean(fromPigeon)
                .addString(quotas.pendingBytes())
                .addInteger(mailSent)
                .addArrayOfString(attributes)
                .addArrayOfBoolean(creates)
                .addArrayOfString(groups)
                .addArrayOfString(traceparents)
                .addArrayOfString(tracestates);
    }

    /** What a post alone stored: all its messages, none over {@code max_size}, or none when it is null. */
    private static Posted postedAlone(Row row, NewPost post) {
        Integer maxSize = row.getInteger("max_size");
        Long[] ids = row.getArrayOfLongs("ids");
        long[] own = new long[ids.length];
        for (int j = 0; j < own.length; j++) {
            own[j] = ids[j];
        }
        return new Posted(maxSize, own, row.getLong("notifications"));
    }

    /**
     * What each post stored, from the shared statement's answer row: ids are drawn in insertion order, which is the
     * posts' order and each post's own; a post over its queue's {@code max_size} (or whose queue's is null) stored
     * none.
     */
    private static List<Posted> postedOf(Row row, List<NewPost> posts) {
        Integer[] maxSizes = row.getArrayOfIntegers("max_sizes");
        long notifications = row.getLong("notifications");
        Long[] ids = row.getArrayOfLongs("ids");
        List<Posted> answers = new ArrayList<>(posts.size());
        int next = 0;
        for (int p = 0; p < posts.size(); p++) {
            NewPost post = posts.get(p);
            Integer maxSize = maxSizes[p];
            boolean stored = maxSize != null && post.documentSize() <= maxSize;
            long[] own = new long[stored ? post.messages().size() : 0];
            for (int j = 0; j < own.length; j++) {
                own[j] = ids[next++];
            }
            answers.add(new Posted(maxSize, own, answers.isEmpty() ? notifications : 0));
        }
        return answers;
    }

    /**
     * The last nine parameters of the post statements of one queue ({@link #POST}'s $6 to $14, SQS's send's $10 to $18,
     * {@link #POST_CREATING_QUEUE}'s $12 to $20), in the order their fragments take them: the message quota's refusal,
     * the notifications a post may queue and the refusals past the delivery quotas, whether subscriptions must be
     * confirmed, the sealing key, whether the post is a call Pigeon made (then it notifies nobody), the refusal of
     * a project over its delivery bytes, and whether {@code mailto:} subscribers are sent mail.
     */
    public Tuple withFanOutGuards(Tuple params, String keyId, boolean fromPigeon) {
        return withFanOutGuards(params, quotas, confirmationRequired, keyId, fromPigeon, mailSent);
    }

    private static Tuple withFanOutGuards(
            Tuple params, Quotas quotas, boolean confirmationRequired, String keyId, boolean fromPigeon, int mailSent) {
        return params.addString(quotas.messages())
                .addInteger(quotas.limits().maxNotificationsPerPost())
                .addString(quotas.notifications())
                .addString(quotas.groups())
                .addBoolean(confirmationRequired)
                .addString(keyId)
                .addBoolean(fromPigeon)
                .addString(quotas.pendingBytes())
                .addInteger(mailSent);
    }

    /**
     * Takes and deletes up to {@code count} of the oldest free messages, in one statement: those that open, oldest
     * first, and the rows that do not (deleted too: set them aside, see {@link SetAsideStore#keepPopped}).
     */
    public Uni<MessageRows.Read> pop(PlacedQueue queue, int count) {
        return queue.db()
                .preparedQuery(POP)
                .execute(Tuple.of(queue.project(), queue.storedName(), count))
                .map(rows -> {
                    MessageRows.Read read = MessageRows.of(cipher, queue).read(rows);
                    List<Message> popped = new ArrayList<>(read.messages());
                    popped.sort(Comparator.comparingLong(Message::id));
                    return new MessageRows.Read(popped, read.unreadable());
                });
    }

    /** Deletes every message and claim of the queue; how many messages. */
    public Uni<Integer> purge(PlacedQueue queue) {
        return queue.db()
                .preparedQuery(PURGE)
                .execute(Tuple.of(queue.project(), queue.storedName()))
                .map(rows -> (int) rows.iterator().next().getLong("purged").longValue());
    }

    /** Inserts all messages in one statement; their ids in request order, or empty if the queue is missing. */
    public Uni<Optional<Posted>> post(
            PlacedQueue queue, UUID clientId, List<NewMessage> messages, String keyId, boolean fromPigeon) {
        Integer[] ttls = messages.stream().map(NewMessage::ttl).toArray(Integer[]::new);
        String[] bodies = messages.stream().map(NewMessage::body).toArray(String[]::new);
        return queue.db()
                .preparedQuery(POST)
                .execute(withFanOutGuards(
                                Tuple.of(queue.project(), queue.storedName(), clientId)
                                        .addArrayOfInteger(ttls)
                                        .addArrayOfString(bodies),
                                quotas,
                                confirmationRequired,
                                keyId,
                                fromPigeon,
                                mailSent)
                        // $15 and $16: each message's trace context (null: none)
                        .addArrayOfString(
                                messages.stream().map(NewMessage::traceparent).toArray(String[]::new))
                        .addArrayOfString(
                                messages.stream().map(NewMessage::tracestate).toArray(String[]::new)))
                .map(rows -> {
                    if (rows.size() == 0) {
                        return Optional.empty();
                    }
                    long[] ids = new long[rows.size()];
                    long notifications = 0;
                    int i = 0;
                    for (Row row : rows) {
                        ids[i++] = row.getLong(0);
                        notifications = row.getLong(1);
                    }
                    // Ids are drawn in insertion order, which is request order.
                    Arrays.sort(ids);
                    return Optional.of(new Posted(null, ids, notifications));
                });
    }

    /**
     * What a listing asks for: the page after row {@code marker}, at most {@code limit} rows. The record owns
     * the order of the statement's parameters: the queue ($1, $2), then $3 to $8 as declared, then the window.
     */
    public record ListQuery(
            long marker, UUID clientId, boolean echo, boolean includeClaimed, boolean includeDelayed, int limit) {
        Tuple parameters(PlacedQueue queue) {
            return Tuple.from(List.of(
                    queue.project(),
                    queue.storedName(),
                    marker,
                    clientId,
                    echo,
                    includeClaimed,
                    includeDelayed,
                    limit,
                    LIST_WINDOW));
        }
    }

    /** A page of the listing and the rows it left out because they do not open. */
    public record Listed(MessagePage page, List<MessageRows.Unopened> unreadable) {}

    /** A page of the listing, or empty when the queue does not exist. */
    public Uni<Optional<Listed>> list(PlacedQueue queue, ListQuery query) {
        return queue.db().preparedQuery(LIST).execute(query.parameters(queue)).map(rows -> {
            Optional<MessageRows.Read> read = MessageRows.of(cipher, queue).ofQueue(rows);
            if (read.isEmpty()) {
                return Optional.empty();
            }
            Row first = rows.iterator().next();
            boolean windowFull = first.getLong("window_size") == LIST_WINDOW;
            int pageRows = 0;
            Long lastRow = null;
            for (Row row : rows) {
                if (row.getLong("id") != null) {
                    pageRows++;
                    lastRow = row.getLong("id");
                }
            }
            return Optional.of(new Listed(
                    MessagePage.of(
                            read.get().messages(),
                            pageRows,
                            lastRow,
                            query.limit(),
                            windowFull ? first.getLong("window_last_id") : null),
                    read.get().unreadable()));
        });
    }

    public Uni<MessageRows.Read> getByIds(PlacedQueue queue, long[] ids) {
        return queue.db()
                .preparedQuery(GET_BY_IDS)
                .execute(Tuple.of(queue.project(), queue.storedName()).addArrayOfLong(boxed(ids)))
                .map(MessageRows.of(cipher, queue)::read);
    }

    public Uni<DeleteOutcome> delete(PlacedQueue queue, long id, UUID claimId) {
        return queue.db()
                .preparedQuery(DELETE_ONE)
                .execute(Tuple.of(queue.project(), queue.storedName(), id, claimId))
                .map(rows -> {
                    if (rows.size() == 0) {
                        return DeleteOutcome.GONE;
                    }
                    Row row = rows.iterator().next();
                    if (row.getBoolean("deleted")) {
                        return DeleteOutcome.DELETED;
                    }
                    boolean claimed = row.getBoolean("claimed");
                    if (claimId == null) {
                        return DeleteOutcome.CLAIMED;
                    }
                    return claimed ? DeleteOutcome.CLAIM_MISMATCH : DeleteOutcome.NOT_CLAIMED;
                });
    }

    /** The ids one request names in its queue. */
    public record IdsInQueue(PlacedQueue queue, long[] ids) {}

    /**
     * Deletes the messages of every request in one statement, each in its own queue (all on {@code db}); how many
     * each request deleted, in their order (a message named by several requests counts for the first).
     */
    public Uni<List<Integer>> deleteByIds(SqlClient db, List<IdsInQueue> requests) {
        if (requests.size() == 1) {
            IdsInQueue request = requests.get(0);
            // Several rows, locked in the order the plan meets them: a concurrent delete naming the same rows the other
            // way round (another replica's), or the sweeper, may deadlock with it; aborted, it deleted nothing.
            return DatabaseFailures.retriedOnConflict(db.preparedQuery(DELETE_BY_IDS)
                            .execute(Tuple.of(
                                            request.queue().project(),
                                            request.queue().storedName())
                                    .addArrayOfLong(boxed(request.ids()))))
                    .map(rows ->
                            List.of(rows.iterator().next().getLong("deleted").intValue()));
        }
        SharedDelete shared = SharedDelete.of(requests);
        return db.preparedQuery(DELETE_BY_IDS_SHARED)
                .execute(shared.parameters())
                .map(shared::counts);
    }

    /**
     * The parameters of a shared delete and the counting of its answer: the distinct queues ($1 projects, $2 names),
     * and every id named with the ordinal of its queue ($3, $4).
     */
    private record SharedDelete(List<IdsInQueue> requests, List<PlacedQueue> queues, int[] queueOrdinals) {

        static SharedDelete of(List<IdsInQueue> requests) {
            List<PlacedQueue> queues = new ArrayList<>();
            // Equal handles are the same queue (every request here is on the same database).
            Map<PlacedQueue, Integer> ordinals = new HashMap<>();
            int[] queueOrdinals = new int[requests.size()];
            for (int i = 0; i < requests.size(); i++) {
                PlacedQueue queue = requests.get(i).queue();
                queueOrdinals[i] = ordinals.computeIfAbsent(queue, key -> {
                    queues.add(queue);
                    return queues.size();
                });
            }
            return new SharedDelete(requests, queues, queueOrdinals);
        }

        Tuple parameters() {
            int count =
                    requests.stream().mapToInt(request -> request.ids().length).sum();
            Integer[] ordinals = new Integer[count];
            Long[] ids = new Long[count];
            int next = 0;
            for (int i = 0; i < requests.size(); i++) {
                for (long id : requests.get(i).ids()) {
                    ordinals[next] = queueOrdinals[i];
                    ids[next++] = id;
                }
            }
            return Tuple.tuple()
                    .addArrayOfString(queues.stream().map(PlacedQueue::project).toArray(String[]::new))
                    .addArrayOfString(
                            queues.stream().map(PlacedQueue::storedName).toArray(String[]::new))
                    .addArrayOfInteger(ordinals)
                    .addArrayOfLong(ids);
        }

        /** Each request's count from the rows the statement returned (queue ordinal, id). */
        List<Integer> counts(RowSet<Row> rows) {
            Set<DeletedRow> deleted = new HashSet<>();
            rows.forEach(row -> deleted.add(new DeletedRow(row.getInteger(0), row.getLong(1))));
            List<Integer> counts = new ArrayList<>(requests.size());
            for (int i = 0; i < requests.size(); i++) {
                int count = 0;
                for (long id : requests.get(i).ids()) {
                    count += deleted.remove(new DeletedRow(queueOrdinals[i], id)) ? 1 : 0;
                }
                counts.add(count);
            }
            return counts;
        }
    }

    private record DeletedRow(int queueOrdinal, long id) {}

    /**
     * Deletes the listed messages if every claimed one among them is held by one of {@code claimIds}; how many
     * were deleted, or empty when one was held by another claim (then none is deleted).
     */
    public Uni<Optional<Integer>> deleteByIdsWithClaims(PlacedQueue queue, long[] ids, UUID[] claimIds) {
        return DatabaseFailures.retriedOnConflict(queue.db()
                        .preparedQuery(DELETE_BY_IDS_WITH_CLAIMS)
                        .execute(Tuple.of(queue.project(), queue.storedName())
                                .addArrayOfLong(boxed(ids))
                                .addArrayOfUUID(claimIds)))
                .map(rows -> {
                    Row row = rows.iterator().next();
                    return row.getBoolean("refused")
                            ? Optional.empty()
                            : Optional.of(row.getLong("deleted").intValue());
                });
    }

    /**
     * The queue's statistics, or empty when it does not exist: exact up to {@link #EXACT_STATS_LIMIT} live messages;
     * beyond, the total is an estimate and the claimed count is at least that limit when it reaches it.
     */
    public Uni<Optional<QueueStats>> stats(PlacedQueue queue) {
        return queue.db()
                .preparedQuery(STATS)
                .execute(Tuple.of(queue.project(), queue.storedName(), EXACT_STATS_LIMIT + 1))
                .map(rows -> {
                    if (rows.size() == 0) {
                        return Optional.empty();
                    }
                    Row row = rows.iterator().next();
                    long headTotal = row.getLong("head_total");
                    boolean exact = headTotal <= EXACT_STATS_LIMIT;
                    long total = exact
                            ? headTotal
                            : estimatedTotal(
                                    headTotal,
                                    row.getLong("oldest_id"),
                                    row.getLong("head_last_id"),
                                    row.getLong("newest_id"));
                    long claimed = exact ? row.getLong("head_claimed") : Math.min(row.getLong("claimed"), total);
                    // Past the head, the delayed share of the head is taken for the whole queue's.
                    long headDelayed = row.getLong("head_delayed");
                    long delayed = exact
                            ? headDelayed
                            : Math.min(total - claimed, Math.round(headDelayed * (double) total / headTotal));
                    return Optional.of(new QueueStats(
                            total - claimed, claimed, delayed, edge(row, "oldest"), edge(row, "newest")));
                });
    }

    /**
     * A queue's live messages estimated from its head: {@code headCount} of them among the ids {@code oldest} to
     * {@code headLast}, at the same density up to {@code newest} (ids are shared by all queues of the database, and
     * the messages deleted among them leave gaps; both are assumed even over the queue). Never below the head's count.
     */
    static long estimatedTotal(long headCount, long oldest, long headLast, long newest) {
        double density = headCount / (double) (headLast - oldest + 1);
        return Math.max(headCount, Math.round(density * (newest - oldest + 1)));
    }

    private static QueueStats.Edge edge(Row row, String which) {
        Long id = row.getLong(which + "_id");
        if (id == null) {
            return null;
        }
        return new QueueStats.Edge(id, row.getLong(which + "_age"), row.getOffsetDateTime(which + "_created"));
    }

    static Long[] boxed(long[] ids) {
        return Arrays.stream(ids).boxed().toArray(Long[]::new);
    }
}
