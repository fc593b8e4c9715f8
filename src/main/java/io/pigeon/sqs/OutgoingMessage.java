package io.pigeon.sqs;

import java.util.Map;

/**
 * A message as SendMessage (or one entry of SendMessageBatch) gives it: its body, its message attributes and system
 * attributes as sent (null or empty: none), and its delay in seconds (null: the queue's). Checked by
 * {@link SqsMessages}.
 */
public record OutgoingMessage(
        String body,
        Map<String, AttributeValue> attributes,
        Map<String, AttributeValue> systemAttributes,
        Integer delaySeconds) {

    public static OutgoingMessage of(String body) {
        return new OutgoingMessage(body, null, null, null);
    }
}
