package io.pigeon.subscription;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pigeon.config.PigeonConfig;
import io.pigeon.dispatch.AllowedTargets;
import io.pigeon.dispatch.CallHeaders;
import io.pigeon.dispatch.DispatchAddress;
import io.pigeon.dispatch.MailHeaders;
import io.pigeon.dispatch.MailSenders;
import io.pigeon.dispatch.RetrySchedule;
import io.pigeon.pool.QueueDatabases;
import io.pigeon.queue.PlacedQueue;
import io.pigeon.queue.QueueName;
import io.pigeon.rules.Paging;
import io.pigeon.rules.Rejection;
import io.pigeon.storage.DatabaseFailures;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The rules of v2 subscriptions: what a subscription document must hold (Zaqar's validation, with its
 * messages), that a queue has at most one live subscription per subscriber, and TTLs.
 */
@ApplicationScoped
public class SubscriptionService {

    /** Zaqar's smallest subscription TTL, in seconds. */
    public static final int MIN_SUBSCRIPTION_TTL = 60;

    /** Options written into a mail's header (Zaqar's mail task reads these). */
    private static final List<String> MAIL_HEADER_OPTIONS = List.of("from", "subject");

    private static final Pattern MAILTO = Pattern.compile("(?i)mailto:[^\\s@]+@[^\\s@]+");
    /**
     * A template may repeat the notification only this often: each copy is up to a message's size, and the
     * call's body must stay bounded (pigeon.dispatch.max-call-bytes).
     */
    public static final int MAX_TEMPLATE_PLACEHOLDERS = 2;

    private static final String NOTIFICATION_PLACEHOLDER = "\"$zaqar_message$\"";

    private final SubscriptionStore store;
    private final QueueDatabases databases;
    private final SubscriptionConfirmations confirmations;
    private final AllowedTargets allowedTargets;
    private final MailSenders senders;
    private final PigeonConfig config;

    public SubscriptionService(
            SubscriptionStore store,
            QueueDatabases databases,
            SubscriptionConfirmations confirmations,
            AllowedTargets allowedTargets,
            MailSenders senders,
            PigeonConfig config) {
        this.store = store;
        this.databases = databases;
        this.confirmations = confirmations;
        this.allowedTargets = allowedTargets;
        this.senders = senders;
        this.config = config;
    }

    /**
     * The fields of a subscription document, read at the edge: each null when the document does not name it.
     * {@code options} is a free-form object, stored as given once its known keys are checked.
     */
    public record Fields(String subscriber, Integer ttl, ObjectNode options) {}

    /**
     * Subscribes; the subscription's id. As in Zaqar 15, a queue that already has a live subscription for the
     * subscriber answers with that subscription's id while it is unconfirmed (the client re-subscribes, and is
     * asked again to confirm when confirmation is required; the stored ttl and options stay), and 409 once it has
     * been confirmed.
     */
    public Uni<Long> create(String project, QueueName queue, Fields fields) {
        if (fields.subscriber() == null) {
            throw Rejection.invalidRequest("Missing parameter subscriber in body.");
        }
        String subscriber = subscriber(fields.subscriber());
        int ttl = fields.ttl() != null ? ttl(fields.ttl()) : config.defaultSubscriptionTtl();
        String options = fields.options() != null ? options(fields.options()) : "{}";
        // A subscription lives beside its queue (a post fans out to it in its own statement): a queue that does not
        // exist yet is placed now, where it will be created.
        return PlacedQueue.forCreating(databases, project, queue, null)
                .chain(placed -> store.create(placed, subscriber, ttl, options)
                        .flatMap(created -> created.isPresent() && !confirmations.required(subscriber)
                                ? Uni.createFrom().item(created.get())
                                : subscribed(placed, subscriber, created)));
    }

    /** The subscription a create made or found, asked to confirm when that is required; 409 once confirmed. */
    private Uni<Long> subscribed(PlacedQueue queue, String subscriber, Optional<Long> created) {
        return (created.isPresent()
                        ? store.get(queue, created.get())
                        : store.getBySubscriber(queue, subscriber).map(existing -> {
                            if (existing.isEmpty() || existing.get().confirmed()) {
                                throw duplicate();
                            }
                            return existing;
                        }))
                .flatMap(found -> {
                    // Gone between the two statements (deleted or expired at that instant): as if it existed.
                    Subscription subscription = found.orElseThrow(SubscriptionService::duplicate);
                    return ask(
                                    queue,
                                    subscription,
                                    confirmations.validSeconds(subscription),
                                    confirmations::askToConfirm)
                            .replaceWith(subscription.id());
                });
    }

    /**
     * Confirms or unconfirms a subscription; false when there is none. Where confirmation is required, it proves
     * the receiver's consent, so {@code confirmed: true} is accepted only through the grant of the latest
     * confirmation request sent to the subscriber ({@code receiverGrant}: that grant's expiry, which tells it from
     * earlier ones); a grant sent before (to an earlier subscriber) is a 404. The project may still unconfirm, and
     * an unsubscribed webhook is told so.
     */
    public Uni<Boolean> confirm(
            String project, QueueName queue, long id, boolean confirmed, Optional<Instant> receiverGrant) {
        return PlacedQueue.of(databases, project, queue)
                .chain(placed -> store.get(placed, id).flatMap(found -> {
                    if (found.isEmpty()) {
                        return Uni.createFrom().item(false);
                    }
                    // Whether consent is needed depends on the subscriber (mail may require it where webhooks do
                    // not): the update below changes only a row that still has the subscriber read here.
                    String subscriber = found.get().subscriber();
                    boolean required = confirmations.required(subscriber);
                    boolean consent = confirmed && required;
                    if (consent && receiverGrant.isEmpty()) {
                        throw new Rejection(
                                Rejection.Reason.FORBIDDEN,
                                "A subscription is confirmed only by its subscriber, through the pre-signed URL of "
                                        + "the confirmation request it was sent (pigeon.notification."
                                        + (Subscription.isMail(subscriber) ? "mail." : "")
                                        + "require-confirmation is on).");
                    }
                    Instant request = consent ? receiverGrant.get() : null;
                    return store.confirm(placed, id, subscriber, confirmed, request)
                            .flatMap(updated -> {
                                if (!updated || confirmed || !required) {
                                    return Uni.createFrom().item(updated);
                                }
                                return store.get(placed, id)
                                        .flatMap(again -> again.map(subscription -> ask(
                                                        placed,
                                                        subscription,
                                                        confirmations.unsubscribedValidSeconds(),
                                                        confirmations::tellUnsubscribed))
                                                .orElseGet(
                                                        () -> Uni.createFrom().voidItem()))
                                        .replaceWith(true);
                            });
                }));
    }

    /** What a confirmation request or notice sends, once its expiry is recorded. */
    @FunctionalInterface
    private interface Request {
        Uni<Void> send(String project, QueueName queue, Subscription subscription, Instant until);
    }

    /**
     * Records a new confirmation request (or unsubscribe notice) for the subscription, which makes every earlier one
     * void, and sends it.
     */
    private Uni<Void> ask(PlacedQueue queue, Subscription subscription, int validSeconds, Request request) {
        return store.askToConfirm(queue, subscription.id(), validSeconds)
                .flatMap(until -> until.map(expiry -> request.send(queue.project(), queue.name(), subscription, expiry))
                        .orElseGet(() -> Uni.createFrom().voidItem()));
    }

    public Uni<Optional<Subscription>> get(String project, QueueName queue, long id) {
        return PlacedQueue.of(databases, project, queue).chain(placed -> store.get(placed, id));
    }

    public Uni<List<Subscription>> list(String project, QueueName queue, long marker, Integer limit) {
        int max = config.maxSubscriptionsPerPage();
        int pageSize = limit == null ? Math.min(Paging.DEFAULT_PAGE_SIZE, max) : limit;
        if (pageSize < 1 || pageSize > max) {
            throw Rejection.invalidRequest("Limit must be at least 1 and may not be greater than " + max + ".");
        }
        return PlacedQueue.of(databases, project, queue).chain(placed -> store.list(placed, marker, pageSize));
    }

    /** Changes the fields given; false when there is no such live subscription, 409 on a duplicate. */
    public Uni<Boolean> update(String project, QueueName queue, long id, Fields fields) {
        String subscriber = fields.subscriber() != null ? subscriber(fields.subscriber()) : null;
        Integer ttl = fields.ttl() != null ? ttl(fields.ttl()) : null;
        String options = fields.options() != null ? options(fields.options()) : null;
        return PlacedQueue.of(databases, project, queue)
                .call(placed -> subscriber == null ? Uni.createFrom().voidItem() : refuseSocketReaddressing(placed, id))
                .chain(placed -> store.update(placed, id, subscriber, ttl, options)
                        .call(updated -> updated && subscriber != null && confirmations.required(subscriber)
                                ? askAgainUnlessConfirmed(placed, id)
                                : Uni.createFrom().voidItem()))
                .onFailure(DatabaseFailures::isUniqueViolation)
                .transform(failure -> duplicate());
    }

    /**
     * A websocket's own subscription keeps its socket: given a webhook or mail subscriber, it would keep the socket's
     * lease and be swept when the socket goes, and the socket would silently stop being pushed to.
     */
    private Uni<Void> refuseSocketReaddressing(PlacedQueue queue, long id) {
        return store.get(queue, id)
                .invoke(found -> {
                    if (found.isPresent() && found.get().socket()) {
                        throw Rejection.invalidRequest(
                                "subscriber of a websocket's own subscription cannot change: delete it"
                                        + " and subscribe the new subscriber.");
                    }
                })
                .replaceWithVoid();
    }

    /** A subscription given a new subscriber is unconfirmed: the new subscriber is asked, as a new one would be. */
    private Uni<Void> askAgainUnlessConfirmed(PlacedQueue queue, long id) {
        return store.get(queue, id).flatMap(found -> found.filter(s -> !s.confirmed())
                .map(subscription ->
                        ask(queue, subscription, confirmations.validSeconds(subscription), confirmations::askToConfirm))
                .orElseGet(() -> Uni.createFrom().voidItem()));
    }

    public Uni<Void> delete(String project, QueueName queue, long id) {
        return PlacedQueue.of(databases, project, queue).chain(placed -> store.delete(placed, id));
    }

    /** Deletes every subscription of the queue, on its client (the pool, or a caller's transaction). */
    public Uni<Void> deleteAll(PlacedQueue queue) {
        return store.deleteAll(queue);
    }

    private static int occurrences(String text, String part) {
        int count = 0;
        for (int at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + part.length())) {
            count++;
        }
        return count;
    }

    /** The ttl of a subscription to create: {@code fields}' checked as a create checks it, or the default. */
    int ttlToCreate(Fields fields) {
        return fields.ttl() != null ? ttl(fields.ttl()) : config.defaultSubscriptionTtl();
    }

    /** The options of a subscription to create, as JSON text: {@code fields}' checked as a create checks them, or none. */
    String optionsToCreate(Fields fields) {
        return fields.options() != null ? options(fields.options()) : "{}";
    }

    static Rejection duplicate() {
        return new Rejection(
                Rejection.Reason.DUPLICATE,
                "Such subscription already exists. Subscriptions are unique by " + "project + queue + subscriber URI.");
    }

    private String subscriber(String subscriber) {
        String scheme = subscriber.contains(":")
                ? subscriber.substring(0, subscriber.indexOf(':')).toLowerCase(Locale.ROOT)
                : "";
        switch (scheme) {
            case "http", "https" -> allowedTargets.check(
                    "subscriber", DispatchAddress.httpUrl("subscriber", subscriber));
            case "mailto" -> {
                if (!MAILTO.matcher(subscriber).matches() || subscriber.length() > DispatchAddress.MAX_TARGET_LENGTH) {
                    throw Rejection.invalidRequest("subscriber must be a mailto URI with one address, of at most "
                            + DispatchAddress.MAX_TARGET_LENGTH + " characters.");
                }
                String refusal = MailHeaders.subscriberRefusal(subscriber);
                if (refusal != null) {
                    throw Rejection.invalidRequest(refusal);
                }
            }
            default -> throw Rejection.invalidRequest(
                    "The subscriber type of subscription must be supported in the list ['http', 'https', 'mailto'].");
        }
        return subscriber;
    }

    private static int ttl(int ttl) {
        if (ttl < MIN_SUBSCRIPTION_TTL) {
            throw Rejection.invalidRequest(
                    "The TTL for a subscription must be at least " + MIN_SUBSCRIPTION_TTL + " seconds long.");
        }
        return ttl;
    }

    private String options(ObjectNode value) {
        RetrySchedule.validatePolicy("options._retry_policy", value.get("_retry_policy"));
        JsonNode headers = value.get("post_headers");
        if (headers != null) {
            if (!headers.isObject()) {
                throw Rejection.invalidRequest("options.post_headers must be an object of header names to strings.");
            }
            if (headers.size() > CallHeaders.MAX_HEADERS) {
                throw Rejection.invalidRequest(
                        "options.post_headers may hold at most " + CallHeaders.MAX_HEADERS + " headers.");
            }
            headers.properties().forEach(header -> {
                String refusal = header.getValue().isTextual()
                        ? CallHeaders.refusal(header.getKey(), header.getValue().asText())
                        : "the value of \"" + header.getKey() + "\" is not a string";
                if (refusal != null) {
                    throw Rejection.invalidRequest("options.post_headers: " + refusal + ".");
                }
            });
        }
        // A mail's sender and subject go into its header: one rule (MailHeaders) for them and for a mailto URI's
        // ?subject=. The sender is the deployment's unless the operator allowed the domain a from names (MailSenders).
        for (String header : MAIL_HEADER_OPTIONS) {
            JsonNode text = value.get(header);
            if (text != null && text.isTextual()) {
                String refusal = MailHeaders.refusal("options." + header, text.asText());
                if (refusal != null) {
                    throw Rejection.invalidRequest(refusal);
                }
            }
        }
        JsonNode from = value.get("from");
        if (from != null && !from.isNull()) {
            if (!from.isTextual()) {
                throw Rejection.invalidRequest("options.from must be a string: a mail address.");
            }
            String refusal = from.asText().isEmpty() ? null : senders.refusal(from.asText());
            if (refusal != null) {
                throw Rejection.invalidRequest(refusal);
            }
        }
        JsonNode postData = value.get("post_data");
        if (postData != null) {
            if (!postData.isTextual()) {
                throw Rejection.invalidRequest("options.post_data must be a string (a template in which "
                        + "\"$zaqar_message$\" stands for the notification).");
            }
            int placeholders = occurrences(postData.asText(), NOTIFICATION_PLACEHOLDER);
            if (placeholders > MAX_TEMPLATE_PLACEHOLDERS) {
                throw Rejection.invalidRequest("options.post_data may contain \"$zaqar_message$\" at most "
                        + MAX_TEMPLATE_PLACEHOLDERS + " times; it contains it " + placeholders + " times.");
            }
        }
        String json = value.toString();
        int size = json.getBytes(StandardCharsets.UTF_8).length;
        if (size > config.maxQueueMetadata()) {
            throw Rejection.invalidRequest(
                    "options is " + size + " bytes; it may not exceed " + config.maxQueueMetadata() + " bytes.");
        }
        return json;
    }
}
