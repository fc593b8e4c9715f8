package io.pigeon.subscription;

/** A stored subscription: who is notified of the messages posted to its queue ({@code source}). */
public record Subscription(
        long id, String source, String subscriber, int ttl, String optionsJson, long age, boolean confirmed) {

    /** Pigeon sends no mail: only http(s) subscribers are called. */
    public boolean delivered() {
        return subscriber.regionMatches(true, 0, "http:", 0, 5) || subscriber.regionMatches(true, 0, "https:", 0, 6);
    }
}
