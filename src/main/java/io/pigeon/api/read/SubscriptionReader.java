package io.pigeon.api.read;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pigeon.rules.Rejection;
import io.pigeon.subscription.SubscriptionService;

/**
 * Subscription documents (v2, queues and topics): their fields' JSON types are checked here, in Zaqar's texts;
 * what their values may be is the subscription service's rule.
 */
public final class SubscriptionReader {

    private SubscriptionReader() {}

    /** The fields of a subscription to create or to update. */
    public static SubscriptionService.Fields fields(JsonNode document) {
        if (!document.isObject()) {
            throw Rejection.invalidRequest("Subscriptions must be a dict.");
        }
        if (document.isEmpty()) {
            throw Rejection.invalidRequest("No subscription to create.");
        }
        JsonNode subscriber = document.get("subscriber");
        if (subscriber != null && !subscriber.isTextual()) {
            throw Rejection.invalidRequest("subscriber must be a string: an http, https or mailto URI.");
        }
        JsonNode ttl = document.get("ttl");
        if (ttl != null && (!ttl.isIntegralNumber() || !ttl.canConvertToInt())) {
            throw Rejection.invalidRequest("TTL must be an integer from " + SubscriptionService.MIN_SUBSCRIPTION_TTL
                    + " to " + Integer.MAX_VALUE + ".");
        }
        JsonNode options = document.get("options");
        if (options != null && !options.isObject()) {
            throw Rejection.invalidRequest("Options must be a dict.");
        }
        return new SubscriptionService.Fields(
                subscriber == null ? null : subscriber.asText(), ttl == null ? null : ttl.intValue(), (ObjectNode)
                        options);
    }

    /**
     * A confirmation, {@code {"confirmed": true|false}}: whether to confirm. {@code document} is null when none was
     * sent.
     */
    public static boolean confirmed(JsonNode document) {
        JsonNode confirmed = document != null && document.isObject() ? document.get("confirmed") : null;
        if (confirmed == null || !confirmed.isBoolean()) {
            throw Rejection.invalidRequest("The 'confirmed' should be boolean.");
        }
        return confirmed.booleanValue();
    }
}
