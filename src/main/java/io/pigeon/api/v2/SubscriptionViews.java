package io.pigeon.api.v2;

import com.fasterxml.jackson.annotation.JsonRawValue;
import io.pigeon.api.view.PageLink;
import io.pigeon.message.MessageIds;
import io.pigeon.queue.QueueName;
import io.pigeon.subscription.Subscription;
import io.quarkus.runtime.annotations.RegisterForReflection;
import java.util.List;

/** The v2 subscription answers. */
public final class SubscriptionViews {

    static final String WEBHOOK = "webhook";
    static final String MAIL = "mail";
    /** A websocket's own subscription: its messages are pushed to that socket. */
    static final String WEBSOCKET = "websocket";
    /** A {@code mailto:} subscriber where no SMTP server is configured (pigeon.notification.mail.enabled off). */
    static final String NOT_DELIVERED = "not delivered: Pigeon has no mail server";

    private SubscriptionViews() {}

    @RegisterForReflection
    public record Created(String subscription_id) {}

    /** Zaqar's subscription document ({@code confirmed} as PUT .../confirm set it); {@code delivery} is Pigeon's. */
    @RegisterForReflection
    public record Document(
            String id,
            String subscriber,
            String source,
            int ttl,
            @JsonRawValue String options,
            long age,
            boolean confirmed,
            String delivery) {
        /** The document of {@code queue}'s subscription: its source named as the client names it. */
        public static Document of(Subscription subscription, QueueName queue) {
            return new Document(
                    MessageIds.format(subscription.id()),
                    subscription.subscriber(),
                    queue.name(),
                    subscription.ttl(),
                    subscription.optionsJson(),
                    subscription.age(),
                    subscription.confirmed(),
                    delivery(subscription));
        }

        private static String delivery(Subscription subscription) {
            if (subscription.socket()) {
                return WEBSOCKET;
            }
            return !subscription.delivered() ? NOT_DELIVERED : subscription.mail() ? MAIL : WEBHOOK;
        }
    }

    @RegisterForReflection
    public record Page(List<Document> subscriptions, List<PageLink> links) {}
}
