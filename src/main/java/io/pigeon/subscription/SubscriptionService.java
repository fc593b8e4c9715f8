package io.pigeon.subscription;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pigeon.rules.Rejection;
import io.pigeon.config.PigeonConfig;
import io.pigeon.dispatch.AllowedTargets;
import io.pigeon.dispatch.CallHeaders;
import io.pigeon.dispatch.DispatchAddress;
import io.pigeon.dispatch.RetrySchedule;
import io.smallrye.mutiny.Uni;
import io.pigeon.health.DatabaseFailures;
import jakarta.enterprise.context.ApplicationScoped;
import java.nio.charset.StandardCharsets;
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

    private static final Pattern MAILTO = Pattern.compile("(?i)mailto:[^\\s@]+@[^\\s@]+");
    /**
     * A template may repeat the notification only this often: each copy is up to a message's size, and the
     * call's body must stay bounded (pigeon.dispatch.max-call-bytes).
     */
    public static final int MAX_TEMPLATE_PLACEHOLDERS = 2;
    private static final String NOTIFICATION_PLACEHOLDER = "\"$zaqar_message$\"";

    private final SubscriptionStore store;
    private final AllowedTargets allowedTargets;
    private final PigeonConfig config;

    public SubscriptionService(SubscriptionStore store, AllowedTargets allowedTargets, PigeonConfig config) {
        this.store = store;
        this.allowedTargets = allowedTargets;
        this.config = config;
    }

    /** The new subscription's id; 409 when the queue has a live subscription for this subscriber. */
    public Uni<Long> create(String project, String queue, JsonNode document) {
        ObjectNode fields = object(document);
        if (!fields.has("subscriber")) {
            throw Rejection.invalidRequest("Missing parameter subscriber in body.");
        }
        String subscriber = subscriber(fields.get("subscriber"));
        int ttl = fields.has("ttl") ? ttl(fields.get("ttl")) : config.defaultSubscriptionTtl();
        String options = fields.has("options") ? options(fields.get("options")) : "{}";
        return store.create(project, queue, subscriber, ttl, options)
                .map(id -> id.orElseThrow(SubscriptionService::duplicate));
    }

    public Uni<Optional<Subscription>> get(String project, String queue, long id) {
        return store.get(project, queue, id);
    }

    public Uni<List<Subscription>> list(String project, String queue, long marker, Integer limit) {
        int max = config.maxSubscriptionsPerPage();
        int pageSize = limit == null ? Math.min(10, max) : limit;
        if (pageSize < 1 || pageSize > max) {
            throw Rejection.invalidRequest("Limit must be at least 1 and may not be greater than " + max + ".");
        }
        return store.list(project, queue, marker, pageSize);
    }

    /** Changes the fields the document names; 404 when there is no such live subscription, 409 on a duplicate. */
    public Uni<Void> update(String project, String queue, long id, JsonNode document) {
        ObjectNode fields = object(document);
        String subscriber = fields.has("subscriber") ? subscriber(fields.get("subscriber")) : null;
        Integer ttl = fields.has("ttl") ? ttl(fields.get("ttl")) : null;
        String options = fields.has("options") ? options(fields.get("options")) : null;
        return store.update(project, queue, id, subscriber, ttl, options)
                .onFailure(DatabaseFailures::isUniqueViolation)
                .transform(failure -> duplicate())
                .map(updated -> {
                    if (!updated) {
                        throw Rejection.notFound("Subscription " + id + " does not exist.");
                    }
                    return null;
                });
    }

    public Uni<Void> delete(String project, String queue, long id) {
        return store.delete(project, queue, id);
    }

    public Uni<Void> deleteAll(String project, String queue) {
        return store.deleteAll(project, queue);
    }

    private static int occurrences(String text, String part) {
        int count = 0;
        for (int at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + part.length())) {
            count++;
        }
        return count;
    }

    private static Rejection duplicate() {
        return new Rejection(Rejection.Reason.DUPLICATE, "Such subscription already exists. Subscriptions are unique by "
                + "project + queue + subscriber URI.");
    }

    private static ObjectNode object(JsonNode document) {
        if (!document.isObject()) {
            throw Rejection.invalidRequest("Subscriptions must be a dict.");
        }
        if (document.isEmpty()) {
            throw Rejection.invalidRequest("No subscription to create.");
        }
        return (ObjectNode) document;
    }

    private String subscriber(JsonNode value) {
        if (!value.isTextual()) {
            throw Rejection.invalidRequest("subscriber must be a string: an http, https or mailto URI.");
        }
        String subscriber = value.asText();
        String scheme = subscriber.contains(":")
                ? subscriber.substring(0, subscriber.indexOf(':')).toLowerCase(Locale.ROOT) : "";
        switch (scheme) {
            case "http", "https" -> allowedTargets.check("subscriber", DispatchAddress.httpUrl("subscriber", subscriber));
            case "mailto" -> {
                if (!MAILTO.matcher(subscriber).matches() || subscriber.length() > DispatchAddress.MAX_TARGET_LENGTH) {
                    throw Rejection.invalidRequest("subscriber must be a mailto URI with one address, of at most "
                            + DispatchAddress.MAX_TARGET_LENGTH + " characters.");
                }
            }
            default -> throw Rejection.invalidRequest(
                    "The subscriber type of subscription must be supported in the list ['http', 'https', 'mailto'].");
        }
        return subscriber;
    }

    private static int ttl(JsonNode value) {
        if (!value.isIntegralNumber() || !value.canConvertToInt()) {
            throw Rejection.invalidRequest("TTL must be an integer from " + MIN_SUBSCRIPTION_TTL + " to "
                    + Integer.MAX_VALUE + ".");
        }
        if (value.intValue() < MIN_SUBSCRIPTION_TTL) {
            throw Rejection.invalidRequest("The TTL for a subscription must be at least " + MIN_SUBSCRIPTION_TTL
                    + " seconds long.");
        }
        return value.intValue();
    }

    private String options(JsonNode value) {
        if (!value.isObject()) {
            throw Rejection.invalidRequest("Options must be a dict.");
        }
        RetrySchedule.validatePolicy("options._retry_policy", value.get("_retry_policy"));
        JsonNode headers = value.get("post_headers");
        if (headers != null) {
            if (!headers.isObject()) {
                throw Rejection.invalidRequest("options.post_headers must be an object of header names to strings.");
            }
            if (headers.size() > CallHeaders.MAX_HEADERS) {
                throw Rejection.invalidRequest("options.post_headers may hold at most " + CallHeaders.MAX_HEADERS
                        + " headers.");
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
            throw Rejection.invalidRequest("options is " + size + " bytes; it may not exceed "
                    + config.maxQueueMetadata() + " bytes.");
        }
        return json;
    }
}
