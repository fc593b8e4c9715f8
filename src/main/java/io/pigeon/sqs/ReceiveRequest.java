package io.pigeon.sqs;

import java.util.Collection;
import java.util.List;

/**
 * A ReceiveMessage as asked: at most {@code maxMessages} (1 to 10), hidden for {@code visibilityTimeout} seconds
 * (0 to 43,200; null: the queue's {@code VisibilityTimeout}), waiting up to {@code waitSeconds} (0 to 20;
 * null: the queue's own wait, {@code _claim_wait_seconds}), with the system attributes named in {@code
 * attributeNames} ({@code All}, {@code SenderId}, {@code SentTimestamp}, {@code ApproximateReceiveCount}, {@code
 * ApproximateFirstReceiveTimestamp}, {@code AWSTraceHeader}: {@code AttributeNames} and {@code
 * MessageSystemAttributeNames} together) and the message attributes named in {@code messageAttributeNames} (names,
 * {@code All}, {@code .*}, {@code prefix.*}).
 */
public record ReceiveRequest(
        Integer maxMessages,
        Integer visibilityTimeout,
        Integer waitSeconds,
        Collection<String> attributeNames,
        Collection<String> messageAttributeNames) {

    /** One message, the queue's visibility timeout and wait, no attributes. */
    public static ReceiveRequest one() {
        return new ReceiveRequest(1, null, null, List.of(), List.of());
    }
}
