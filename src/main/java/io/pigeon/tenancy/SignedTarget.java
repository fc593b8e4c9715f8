package io.pigeon.tenancy;

import java.util.Optional;

/**
 * The resource a pre-signed request was routed to, as the router matched it: the API version, the collection
 * ({@code queues} or {@code topics}), the queue or topic name, which of its resources (messages, claims,
 * subscriptions), and for a subscription's confirmation, the subscription's id. A grant is checked against this,
 * never against the path as sent: whatever spelling reached the route, the route is what it opens.
 */
public record SignedTarget(String version, String collection, String queue, Kind kind, Optional<String> confirmed) {

    /** The resources of a queue that a share can grant (Zaqar's {@code paths}). */
    public enum Kind {
        MESSAGES("messages"),
        CLAIMS("claims"),
        SUBSCRIPTIONS("subscriptions");

        private final String segment;

        Kind(String segment) {
            this.segment = segment;
        }

        /** The path segment that names it in a granted path. */
        public String segment() {
            return segment;
        }

        static Optional<Kind> ofSegment(String segment) {
            for (Kind kind : values()) {
                if (kind.segment.equals(segment)) {
                    return Optional.of(kind);
                }
            }
            return Optional.empty();
        }
    }

    /** A request to a queue's (or topic's) messages, claims or subscriptions other than a confirmation. */
    public static SignedTarget of(String version, String collection, String queue, Kind kind) {
        return new SignedTarget(version, collection, queue, kind, Optional.empty());
    }

    /** A confirmation of one subscription ({@code PUT .../subscriptions/{id}/confirm}). */
    public static SignedTarget confirmation(String version, String collection, String queue, String subscription) {
        return new SignedTarget(version, collection, queue, Kind.SUBSCRIPTIONS, Optional.of(subscription));
    }
}
