package io.pigeon.dispatch;

/**
 * The common table expressions that hand every message a post stores to each live webhook subscription of
 * its queue, in the post's own statement: a notification exists exactly when its message does. Each
 * becomes one row: an unmergeable group of the delivery engine with its body in the row (no item rows),
 * due when the message becomes visible, carrying
 * Zaqar's notification document ({@code body}, {@code ttl}, {@code queue_name}, {@code Message_Type}) or
 * the subscription's {@code post_data} template with {@code "$zaqar_message$"} replaced by it.
 *
 * <p>A sealed message stays sealed in its notification: the document holds the sealed text as a JSON string where
 * the body goes, and the row keeps that text and its key id, for the dispatcher to open when it sends the call.
 *
 * <p>A message's {@code traceparent} (migration V35) goes with its notifications, which send it as a header.
 *
 * <p>Used after a CTE {@code inserted(id, ttl, body, key_id, visible_at, traceparent)}, with $1 the project and $2 the
 * queue's name; or, in a statement that posts to several queues, with each message's {@code queue_id} (see
 * {@link #ctesAcrossQueues}). The statement reports {@link #QUEUED}, so that the caller can wake the dispatcher.
 *
 * <p>A socket's subscription (one with a lease, {@code socket_lease_until}) is never handed a row: its socket is
 * pushed the message by the replica that holds it, told by the statement's NOTIFY ({@link #SOCKET_CHANNEL}).
 *
 * <p>Where mail is sent ({@code pigeon.notification.mail.enabled}), each live {@code mailto:} subscription is handed
 * its notifications the same way, the row carrying the subscription's {@code subject} and {@code from} options as its
 * headers, for {@link MailDelivery}.
 *
 * <p>Each row records what it holds in {@code item_bytes} (its body, sealed body, headers and retry policy), so that
 * notifications count toward the project's bytes quota as /v3 items do (see {@code UsageCheck}).
 */
public final class NotificationFanOut {

    // A subscription's options are JSON text (json): each is read once per post, in subscribed, not once per message.
    // One text for one queue and for several: {queue} adds the columns that tell the queues apart, {from} and {match}
    // find the subscriptions, {fan} and {join} hand each message to its own queue's, {project} is the group's project.
    private static final String CTES =
            """
            subscribed AS MATERIALIZED (
                SELECT p.*, COALESCE(octet_length(p.headers::text), 0) + octet_length(p.retry_policy::text) AS own_bytes
                FROM (SELECT {queue}s.id AS subscription_id, s.subscriber,
                           CASE WHEN json_typeof(s.options->'post_data') = 'string'
                                     AND s.subscriber !~* '^mailto:' THEN s.options->>'post_data' END AS template,
                           CASE WHEN s.subscriber ~* '^mailto:'
                                THEN json_build_object('subject', s.options->'subject', 'from', s.options->'from')
                                ELSE s.options->'post_headers' END AS headers,
                           json_build_object('queue', %1$s->'_retry_policy', 'subscription', s.options->'_retry_policy')
                               AS retry_policy
                    FROM {from}
                    WHERE {match}s.expires_at > now()
                      AND (s.subscriber ~* '^https?:' AND (s.confirmed OR NOT %2$s)
                           OR %5$s > 0 AND s.subscriber ~* '^mailto:' AND (s.confirmed OR %5$s = 1))
                      AND s.socket_lease_until IS NULL
                      AND NOT %4$s AND EXISTS (SELECT 1 FROM inserted)) p),
            fan AS MATERIALIZED (
                SELECT {fan}s.subscription_id, s.subscriber, s.template, s.headers, s.retry_policy, s.own_bytes,
                       i.ttl, i.body, i.key_id, i.visible_at, i.traceparent
                FROM inserted i {join}),
            fan_groups AS (
                INSERT INTO dispatch_groups (project, merge_key, method, target, mergeable, envelope, body,
                                             headers, retry_policy, fire_at, sealed_body, sealed_key_id, item_bytes,
                                             traceparent)
                SELECT {project}, '-subscription:' || f.subscription_id, 'POST', f.subscriber, false, 'single', c.body,
                       f.headers, f.retry_policy,
                       COALESCE(f.visible_at, now()),
                       c.sealed, f.key_id,
                       octet_length(c.body) + COALESCE(octet_length(c.sealed), 0) + f.own_bytes, f.traceparent
                FROM fan f
                CROSS JOIN LATERAL (
                    SELECT json_build_object('body', CASE WHEN f.key_id IS NULL THEN f.body::json ELSE to_json(f.body) END,
                                             'ttl', f.ttl, 'queue_name', %3$s,
                                             'Message_Type', 'Notification')::text AS doc) n
                CROSS JOIN LATERAL (
                    SELECT CASE WHEN f.template IS NOT NULL THEN replace(f.template, '"$zaqar_message$"', n.doc)
                                ELSE n.doc END AS body,
                           CASE WHEN f.key_id IS NOT NULL THEN f.body END AS sealed) c)""";

    /**
     * The CTEs, reading the queue's metadata (for its {@code _retry_policy}) from {@code queueMetadata}: a
     * scalar subquery that sees the queue even when the statement itself creates it. {@code confirmationRequired}
     * is the boolean parameter that says whether only confirmed subscriptions are notified; {@code queueName} the
     * expression of the name the documents give (a topic's without the prefix it is stored under); {@code fromPigeon}
     * the boolean parameter that says the post is a call Pigeon made ({@link CallMarker}): it notifies nobody, so
     * that a subscription whose webhook leads back to Pigeon, however indirectly, cannot loop; {@code mailSent} the
     * integer parameter that says whether {@code mailto:} subscribers are sent mail ({@link #mailMode}): their
     * notifications are rows as a webhook's, with the subscription's {@code subject} and {@code from} options as the
     * row's headers and no {@code post_data} template (Zaqar's mail task ignores it). {@code confirmationRequired}
     * applies to webhooks; mail has its own requirement, in {@code mailSent}.
     */
    public static String ctes(
            String queueMetadata, String confirmationRequired, String queueName, String fromPigeon, String mailSent) {
        return CTES.replace("{queue}", "")
                        .replace("{from}", "subscriptions s")
                        .replace("{match}", "s.project = $1 AND s.source = $2 AND ")
                        .replace("{fan}", "")
                        .replace("{join}", "CROSS JOIN subscribed s")
                        .replace("{project}", "$1")
                        .formatted(
                                queueMetadata,
                                confirmationRequired + "::boolean",
                                queueName,
                                fromPigeon + "::boolean",
                                mailSent + "::int")
                + ",\n" + SOCKETS_TOLD_OF_ONE_QUEUE;
    }

    /**
     * The CTEs for a statement that posts to several queues, possibly of several projects: each message is handed to
     * the subscriptions of its own queue only, and each notification names its own queue and takes its retry policy.
     * {@code queues} is a relation of the statement's queues, one row each: {@code id}, {@code project}, {@code name}
     * (the subscriptions are found by these two, so they must not carry the queues table's "C" collation, which would
     * keep the subscriptions' index from serving) and {@code metadata}; the CTE {@code inserted} must return
     * {@code queue_id} too. {@code queueName} is the expression of the name the documents give, of the queue's
     * {@code t.name}; the other arguments are those of {@link #ctes}. Use {@link #WITHIN_DELIVERY_QUOTAS_ACROSS_QUEUES}
     * for the final SELECT's guard.
     */
    public static String ctesAcrossQueues(
            String queues, String confirmationRequired, String queueName, String fromPigeon, String mailSent) {
        return CTES.replace("{queue}", "t.id AS queue_id, t.project, " + queueName + " AS queue_name, ")
                        .replace(
                                "{from}",
                                queues + " t JOIN subscriptions s ON s.project = t.project AND s.source = t.name")
                        .replace("{match}", "")
                        .replace("{fan}", "s.project, s.queue_name, ")
                        .replace("{join}", "JOIN subscribed s ON s.queue_id = i.queue_id")
                        .replace("{project}", "f.project")
                        .formatted(
                                "t.metadata",
                                confirmationRequired + "::boolean",
                                "f.queue_name",
                                fromPigeon + "::boolean",
                                mailSent + "::int")
                + ",\n" + SOCKETS_TOLD_ACROSS_QUEUES.replace("{queues}", queues);
    }

    /**
     * The channel on which a post tells the replicas which messages it stored in a queue that has a live socket
     * subscription (see {@code io.pigeon.subscription.SocketPushes}). Each payload is a JSON object, {@code project},
     * {@code queue} (the name the queue is stored under) and {@code ids} (ascending), at most
     * {@value #SOCKET_IDS_PER_NOTICE} ids: at most 256 + 2 * 64 + 300 * 20 bytes, within NOTIFY's 8,000. Never bodies:
     * the replicas that hold sockets for the queue read them back.
     */
    public static final String SOCKET_CHANNEL = "pigeon_socket_posts";

    /** The most message ids one notice carries; a post of more sends several. */
    public static final int SOCKET_IDS_PER_NOTICE = 300;

    // Sent only when the queue has a live socket subscription: a probe of a partial index that holds socket
    // subscriptions only (migration V17), empty for most queues, decided once per statement (it names only $1 and $2).
    // pg_notify delivers at commit, so a post that fails notifies nobody. Not tied to fromPigeon: a socket cannot
    // post back by itself, so no loop can form through it.
    private static final String SOCKETS_TOLD_OF_ONE_QUEUE =
            """
            sockets_told AS (
                SELECT pg_notify('%1$s', json_build_object('project', $1::text, 'queue', $2::text,
                                                           'ids', array_agg(c.id ORDER BY c.id))::text)
                FROM (SELECT id, (row_number() OVER (ORDER BY id) - 1) / %2$d AS notice FROM inserted) c
                WHERE EXISTS (SELECT 1 FROM subscriptions s
                              WHERE s.project = $1 AND s.source = $2 AND s.socket_lease_until > now()
                                AND s.expires_at > now())
                GROUP BY c.notice)"""
                    .formatted(SOCKET_CHANNEL, SOCKET_IDS_PER_NOTICE);

    // The same for a statement of several queues: each queue of {queues} that has a live socket subscription gets its
    // own notices, of its own messages.
    private static final String SOCKETS_TOLD_ACROSS_QUEUES =
            """
            sockets_told AS (
                SELECT pg_notify('%1$s', json_build_object('project', c.project, 'queue', c.name,
                                                           'ids', array_agg(c.id ORDER BY c.id))::text)
                FROM (SELECT t.project, t.name, i.id,
                             (row_number() OVER (PARTITION BY i.queue_id ORDER BY i.id) - 1) / %2$d AS notice
                      FROM {queues} t JOIN inserted i ON i.queue_id = t.id
                      WHERE EXISTS (SELECT 1 FROM subscriptions s
                                    WHERE s.project = t.project AND s.source = t.name AND s.socket_lease_until > now()
                                      AND s.expires_at > now())) c
                GROUP BY c.project, c.name, c.notice)"""
                    .formatted(SOCKET_CHANNEL, SOCKET_IDS_PER_NOTICE);

    /**
     * The CTE {@code sockets_told} alone, for a statement that makes messages claimable in several queues without
     * posting them (a redrive moves them there): the notices on {@link #SOCKET_CHANNEL} for the messages of a CTE
     * {@code inserted(id, queue_id)}, sent for each queue of {@code queues} ({@code id}, {@code project}, {@code name},
     * not in the queues table's "C" collation) that has a live socket subscription. No webhook is notified.
     */
    public static String socketsToldAcrossQueues(String queues) {
        return SOCKETS_TOLD_ACROSS_QUEUES.replace("{queues}", queues);
    }

    /**
     * The number of socket notices the statement sent, for its final SELECT: the CTE that sends them runs only when
     * the statement reads it.
     */
    public static final String SOCKETS_TOLD = "(SELECT count(*) FROM sockets_told)";

    /** The number of notifications the statement queued, for its final SELECT. */
    public static final String QUEUED = "(SELECT count(*) FROM fan)";

    /**
     * The final SELECT's guard of the project's delivery quotas, with {@code %1$s} the most notifications one post
     * may queue and {@code %2$s}, {@code %3$s}, {@code %4$s} the refusals: too many for one post, or the project's
     * deliveries (pending and dead) over their count or bytes limit (found by the usage check). Failing, it fails the
     * whole post. The refusing function runs only when a limit is reached (OR evaluates left to right), so a post
     * within its quotas costs a count it makes anyway and one index probe.
     */
    public static final String WITHIN_DELIVERY_QUOTAS =
            """
            ((SELECT count(*) FROM fan) <= %1$s OR pigeon_refuse('429', %2$s))
            AND ((SELECT count(*) FROM fan) = 0 OR NOT EXISTS (
                     SELECT 1 FROM quota_breaches b
                     WHERE b.project = $1 AND b.kind IN ('groups', 'bytes') AND b.queue_id = 0)
                 OR pigeon_refuse('429', (SELECT CASE b.kind WHEN 'groups' THEN %3$s ELSE %4$s END
                                          FROM quota_breaches b
                                          WHERE b.project = $1 AND b.kind IN ('groups', 'bytes') AND b.queue_id = 0
                                          ORDER BY b.kind DESC LIMIT 1)))""";

    /**
     * The final SELECT's guard of the delivery quotas for a statement that posts to several queues (see
     * {@link #ctesAcrossQueues}), each post and each project checked as {@link #WITHIN_DELIVERY_QUOTAS} checks one:
     * {@code %1$s} is a relation (a CTE) of the posts that stored messages, one row each, with its {@code queue_id} and the
     * number of {@code messages} it stored (each post may queue at most {@code %2$s} notifications, else refusal
     * {@code %3$s}); {@code %4$s} and {@code %5$s} are the refusals of a project over its deliveries' count or bytes.
     * The refusal a shared statement fails with is not a caller's answer: each post then runs again alone (see
     * {@code Coalescer}), for its own.
     */
    public static final String WITHIN_DELIVERY_QUOTAS_ACROSS_QUEUES =
            """
            (NOT EXISTS (SELECT 1 FROM subscribed) OR NOT EXISTS (
                 SELECT 1 FROM %1$s p
                 WHERE p.messages * (SELECT count(*) FROM subscribed s WHERE s.queue_id = p.queue_id) > %2$s)
             OR pigeon_refuse('429', %3$s))
            AND (NOT EXISTS (SELECT 1 FROM fan) OR NOT EXISTS (
                     SELECT 1 FROM quota_breaches b
                     WHERE b.project = ANY(ARRAY(SELECT DISTINCT project FROM fan)) AND b.kind IN ('groups', 'bytes')
                       AND b.queue_id = 0)
                 OR pigeon_refuse('429', (SELECT CASE b.kind WHEN 'groups' THEN %4$s ELSE %5$s END
                                          FROM quota_breaches b
                                          WHERE b.project = ANY(ARRAY(SELECT DISTINCT project FROM fan))
                                            AND b.kind IN ('groups', 'bytes') AND b.queue_id = 0
                                          ORDER BY b.kind DESC LIMIT 1)))""";

    // The queue q's project: $1 in a statement of one queue, q.project in one of several.
    private static final String WITHIN_MESSAGE_QUOTA_OF =
            """
            (NOT EXISTS (SELECT 1 FROM quota_breaches b WHERE b.project = %1$s AND b.kind = 'messages' AND b.queue_id = q.id)
             OR pigeon_refuse('429', %2$s))""";

    /** A guard that the queue {@code q} is not over its message quota (found by the usage check), refusal {@code %s}. */
    public static final String WITHIN_MESSAGE_QUOTA = WITHIN_MESSAGE_QUOTA_OF.formatted("$1", "%s");

    /**
     * {@link #WITHIN_MESSAGE_QUOTA} for a statement of several queues, possibly of several projects: the queue
     * {@code q} carries its {@code project}.
     */
    public static final String WITHIN_MESSAGE_QUOTA_ACROSS_QUEUES =
            WITHIN_MESSAGE_QUOTA_OF.formatted("q.project", "%s");

    /**
     * A CTE that cancels the pending notifications of the subscriptions a statement deletes (a CTE
     * {@code dropped} returning their ids; $1 the project): they are not delivered, nor retried, once their
     * subscription or queue is gone.
     */
    public static final String CANCEL_DROPPED =
            """
            notifications_cancelled AS (
                DELETE FROM dispatch_groups g USING dropped d
                WHERE g.project = $1 AND g.merge_key = '-subscription:' || d.id AND NOT g.mergeable
                  AND g.state = 'pending')""";

    /** {@link #mailMode}: {@code mailto:} subscribers are sent nothing (mail is off). */
    public static final int MAIL_OFF = 0;
    /** {@link #mailMode}: every live {@code mailto:} subscriber is sent its notifications. */
    public static final int MAIL_TO_EVERY_SUBSCRIBER = 1;
    /** {@link #mailMode}: only confirmed {@code mailto:} subscribers are sent their notifications. */
    public static final int MAIL_TO_CONFIRMED = 2;

    /**
     * The value of the statements' {@code mailSent} parameter: off without mail; with it, confirmed subscribers only
     * when mail requires confirmation ({@code pigeon.notification.mail.require-confirmation}, on by default) or every
     * subscription does ({@code pigeon.notification.require-confirmation}).
     */
    public static int mailMode(NotificationSettings notificationSettings) {
        if (!notificationSettings.mail().enabled()) {
            return MAIL_OFF;
        }
        return notificationSettings.requireConfirmation()
                        || notificationSettings.mail().requireConfirmation()
                ? MAIL_TO_CONFIRMED
                : MAIL_TO_EVERY_SUBSCRIBER;
    }

    /** The merge key of a notification's group: this, then its subscription's id. */
    static final String SUBSCRIPTION_KEY = "-subscription:";

    private NotificationFanOut() {}

    /**
     * The subscription a notification's group (a 'single' group) was made for, read from its merge key; null for any
     * other single group (a confirmation request, whose key is {@code -confirm:}).
     */
    static Long subscriptionOf(String mergeKey) {
        if (mergeKey == null || !mergeKey.startsWith(SUBSCRIPTION_KEY)) {
            return null;
        }
        try {
            return Long.parseLong(mergeKey.substring(SUBSCRIPTION_KEY.length()));
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
