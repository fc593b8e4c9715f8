package io.pigeon.subscription;

import io.pigeon.dispatch.NotificationFanOut;
import io.pigeon.dispatch.NotificationSettings;
import io.pigeon.queue.PlacedQueue;
import io.pigeon.quota.Quotas;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.RowSet;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/** The SQL of subscriptions. Expired subscriptions are invisible at once (every read compares with now()). */
@ApplicationScoped
public class SubscriptionStore {

    private static final String COLUMNS =
            """
            id, source, subscriber, ttl, options::text AS options,
            floor(extract(epoch FROM now() - created_at))::bigint AS age, confirmed,
            floor(extract(epoch FROM now() - last_delivered_at))::bigint AS delivered_ago, failures,
            floor(extract(epoch FROM now() - last_failed_at))::bigint AS failed_ago, last_error""";

    // A live subscription with the same subscriber wins (no row back); an expired one is replaced, unconfirmed. A new
    // subscriber needs the queue to be under its subscription quota ($6, refusal $7).
    private static final String CREATE =
            """
            INSERT INTO subscriptions AS s (project, source, subscriber, ttl, options, expires_at)
            SELECT $1, $2, $3, $4::int, $5::text::json, now() + $4::int * interval '1 second'
            WHERE EXISTS (SELECT 1 FROM subscriptions WHERE project = $1 AND source = $2 AND subscriber = $3
                          AND expires_at > now())
               OR (SELECT count(*) FROM subscriptions WHERE project = $1 AND source = $2 AND expires_at > now()) < $6
               OR pigeon_refuse('403', $7)
            ON CONFLICT (project, source, subscriber) DO UPDATE
            SET ttl = EXCLUDED.ttl, options = EXCLUDED.options, created_at = now(), expires_at = EXCLUDED.expires_at,
                confirmed = false
            WHERE s.expires_at <= now()
            RETURNING id""";

    private static final String GET =
            """
            SELECT %s FROM subscriptions
            WHERE project = $1 AND source = $2 AND id = $3 AND expires_at > now()"""
                    .formatted(COLUMNS);

    private static final String GET_BY_SUBSCRIBER =
            """
            SELECT %s FROM subscriptions
            WHERE project = $1 AND source = $2 AND subscriber = $3 AND expires_at > now()"""
                    .formatted(COLUMNS);

    // With $5, only the grant of the latest confirmation request confirms: its expiry is the one recorded. $6: the
    // subscriber the caller read (whether consent is needed depends on it), so that a subscriber changed meanwhile
    // is not confirmed on another's terms.
    private static final String CONFIRM =
            """
            UPDATE subscriptions SET confirmed = $4
            WHERE project = $1 AND source = $2 AND id = $3 AND expires_at > now() AND subscriber = $6
              AND ($5::timestamptz IS NULL OR confirmation_until = $5::timestamptz)""";

    // A new confirmation request's expiry: valid for $4 seconds from now (the database clock), and later than every
    // earlier request's, so that a grant sent before (to an earlier subscriber) never becomes the current one.
    private static final String ASK_TO_CONFIRM =
            """
            UPDATE subscriptions
            SET confirmation_until = GREATEST(date_trunc('second', now()) + $4 * interval '1 second',
                                              confirmation_until + interval '1 second')
            WHERE project = $1 AND source = $2 AND id = $3
            RETURNING confirmation_until""";

    private static final String LIST =
            """
            SELECT %s FROM subscriptions
            WHERE project = $1 AND source = $2 AND id > $3 AND expires_at > now()
            ORDER BY id
            LIMIT $4"""
                    .formatted(COLUMNS);

    // Fields left null keep their value; a new TTL counts from now, as Zaqar's does. A new subscriber has not
    // consented to anything: the subscription is unconfirmed again.
    private static final String UPDATE =
            """
            UPDATE subscriptions
            SET confirmed = confirmed AND ($4::text IS NULL OR $4::text = subscriber),
                subscriber = COALESCE($4, subscriber),
                ttl = COALESCE($5::int, ttl),
                expires_at = CASE WHEN $5::int IS NULL THEN expires_at ELSE now() + $5::int * interval '1 second' END,
                options = COALESCE($6::text::json, options)
            WHERE project = $1 AND source = $2 AND id = $3 AND expires_at > now()""";

    private static final String DELETE =
            """
            WITH dropped AS (DELETE FROM subscriptions WHERE project = $1 AND source = $2 AND id = $3 RETURNING id),
            %s
            SELECT count(*) FROM dropped"""
                    .formatted(NotificationFanOut.CANCEL_DROPPED);

    private static final String DELETE_ALL =
            """
            WITH dropped AS (DELETE FROM subscriptions WHERE project = $1 AND source = $2 RETURNING id),
            %s
            SELECT count(*) FROM dropped"""
                    .formatted(NotificationFanOut.CANCEL_DROPPED);

    private final Quotas quotas;
    /** Whether {@code mailto:} subscribers are sent mail here (else only webhooks are delivered). */
    private final boolean mailSent;

    public SubscriptionStore(Quotas quotas, NotificationSettings notificationSettings) {
        this.quotas = quotas;
        this.mailSent = notificationSettings.mail().enabled();
    }

    /** The new subscription's id, or empty when the queue has a live one with this subscriber already. */
    public Uni<Optional<Long>> create(PlacedQueue queue, String subscriber, int ttl, String optionsJson) {
        return queue.db()
                .preparedQuery(CREATE)
                .execute(Tuple.of(queue.project(), queue.storedName(), subscriber, ttl, optionsJson)
                        .addInteger(quotas.limits().maxSubscriptionsPerQueue())
                        .addString(quotas.subscriptions()))
                .map(rows -> rows.size() == 0
                        ? Optional.empty()
                        : Optional.of(rows.iterator().next().getLong(0)));
    }

    public Uni<Optional<Subscription>> get(PlacedQueue queue, long id) {
        return queue.db()
                .preparedQuery(GET)
                .execute(Tuple.of(queue.project(), queue.storedName(), id))
                .map(rows -> toSubscriptions(rows).stream().findFirst());
    }

    public Uni<List<Subscription>> list(PlacedQueue queue, long marker, int limit) {
        return queue.db()
                .preparedQuery(LIST)
                .execute(Tuple.of(queue.project(), queue.storedName(), marker, limit))
                .map(this::toSubscriptions);
    }

    /** False when there is no such live subscription. */
    public Uni<Boolean> update(PlacedQueue queue, long id, String subscriber, Integer ttl, String optionsJson) {
        return queue.db()
                .preparedQuery(UPDATE)
                .execute(Tuple.from(
                        Arrays.asList(queue.project(), queue.storedName(), id, subscriber, ttl, optionsJson)))
                .map(rows -> rows.rowCount() > 0);
    }

    /** Deletes the subscription and cancels its pending notifications. */
    public Uni<Void> delete(PlacedQueue queue, long id) {
        return queue.db()
                .preparedQuery(DELETE)
                .execute(Tuple.of(queue.project(), queue.storedName(), id))
                .replaceWithVoid();
    }

    /** The live subscription of the queue for {@code subscriber}, if any. */
    public Uni<Optional<Subscription>> getBySubscriber(PlacedQueue queue, String subscriber) {
        return queue.db()
                .preparedQuery(GET_BY_SUBSCRIBER)
                .execute(Tuple.of(queue.project(), queue.storedName(), subscriber))
                .map(rows -> toSubscriptions(rows).stream().findFirst());
    }

    /**
     * Sets whether the live subscription is confirmed; false when there is none with {@code subscriber}, or when
     * {@code requestExpiry} (the expiry of the grant that confirms it, or null) is not that of its latest confirmation
     * request.
     */
    public Uni<Boolean> confirm(
            PlacedQueue queue, long id, String subscriber, boolean confirmed, Instant requestExpiry) {
        OffsetDateTime expiry = requestExpiry == null ? null : requestExpiry.atOffset(ZoneOffset.UTC);
        return queue.db()
                .preparedQuery(CONFIRM)
                .execute(Tuple.from(
                        Arrays.asList(queue.project(), queue.storedName(), id, confirmed, expiry, subscriber)))
                .map(rows -> rows.rowCount() > 0);
    }

    /** Records a new confirmation request valid for {@code validSeconds}; its expiry, or empty when it is gone. */
    public Uni<Optional<Instant>> askToConfirm(PlacedQueue queue, long id, int validSeconds) {
        return queue.db()
                .preparedQuery(ASK_TO_CONFIRM)
                .execute(Tuple.of(queue.project(), queue.storedName(), id, validSeconds))
                .map(rows -> rows.size() == 0
                        ? Optional.empty()
                        : Optional.of(
                                rows.iterator().next().getOffsetDateTime(0).toInstant()));
    }

    /** Deletes every subscription of the queue (a purge of "subscriptions") and their pending notifications. */
    public Uni<Void> deleteAll(PlacedQueue queue) {
        return queue.db()
                .preparedQuery(DELETE_ALL)
                .execute(Tuple.of(queue.project(), queue.storedName()))
                .replaceWithVoid();
    }

    private List<Subscription> toSubscriptions(RowSet<Row> rows) {
        List<Subscription> subscriptions = new ArrayList<>(rows.size());
        for (Row row : rows) {
            String subscriber = row.getString("subscriber");
            subscriptions.add(new Subscription(
                    row.getLong("id"),
                    row.getString("source"),
                    subscriber,
                    row.getInteger("ttl"),
                    row.getString("options"),
                    row.getLong("age"),
                    row.getBoolean("confirmed"),
                    Subscription.isWebhook(subscriber) || mailSent && Subscription.isMail(subscriber),
                    new Subscription.Delivery(
                            row.getLong("delivered_ago"),
                            row.getLong("failures"),
                            row.getLong("failed_ago"),
                            row.getString("last_error"))));
        }
        return subscriptions;
    }
}
