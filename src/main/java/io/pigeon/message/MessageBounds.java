package io.pigeon.message;

import io.pigeon.config.PigeonConfig;
import io.pigeon.rules.Rejection;

/**
 * The bounds every new message is held to before any queue is asked: the size of a post document, and a message's
 * TTL and delay (a missing one takes the queue's default, checked when it is applied). The readers of post
 * documents check each message as they read it, so that a document's first fault is the one reported; the message
 * service checks the same bounds again for posts that come another way.
 */
public record MessageBounds(int maxPostSize, int maxTtl, int maxDelay) {

    public static MessageBounds of(PigeonConfig config) {
        return new MessageBounds(config.maxMessagesPostSize(), config.maxMessageTtl(), config.maxMessageDelay());
    }

    public void checkTtl(Integer ttl) {
        if (ttl != null && (ttl < 60 || ttl > maxTtl)) {
            throw Rejection.invalidRequest("The TTL for a message may not exceed " + maxTtl
                    + " seconds, and must be at least 60 seconds long.");
        }
    }

    public void checkDelay(Integer delay) {
        if (delay != null && (delay < 0 || delay > maxDelay)) {
            throw Rejection.invalidRequest("The delay for a message may not exceed " + maxDelay
                    + " seconds, and must be at least 0 seconds long.");
        }
    }
}
