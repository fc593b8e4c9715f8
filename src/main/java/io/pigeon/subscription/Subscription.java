package io.pigeon.subscription;

/**
 * A stored subscription: who is notified of the messages posted to its queue ({@code source}). {@code delivered}:
 * whether this deployment sends it its notifications (a webhook always; a {@code mailto:} subscriber only when mail is
 * configured, {@code pigeon.notification.mail.enabled}).
 */
public record Subscription(
        long id,
        String source,
        String subscriber,
        int ttl,
        String optionsJson,
        long age,
        boolean confirmed,
        boolean delivered,
        Delivery delivery) {

    /**
     * What the dispatcher recorded of this subscription's notification calls (migration V23): seconds since one was
     * last delivered and since one last failed (null: never), how many failed, and the last failure's text.
     */
    public record Delivery(Long lastDeliveredSecondsAgo, long failures, Long lastFailedSecondsAgo, String lastError) {}

    /** Whether {@code subscriber} is an http(s) URL, called by the dispatcher. */
    public static boolean isWebhook(String subscriber) {
        return subscriber.regionMatches(true, 0, "http:", 0, 5) || subscriber.regionMatches(true, 0, "https:", 0, 6);
    }

    /** Whether {@code subscriber} is a {@code mailto:} URI, sent mail when mail is configured. */
    public static boolean isMail(String subscriber) {
        return subscriber.regionMatches(true, 0, "mailto:", 0, 7);
    }

    /**
     * Whether this subscription is a websocket's own ({@link SocketPushes}): pushed to its socket by the replica that
     * holds it, never called or mailed. No client can spell such a subscriber: only a socket makes one.
     */
    public boolean socket() {
        return subscriber.startsWith(SocketPushes.SUBSCRIBER_PREFIX);
    }

    /** Whether this subscription's subscriber is a {@code mailto:} URI. */
    public boolean mail() {
        return isMail(subscriber);
    }
}
