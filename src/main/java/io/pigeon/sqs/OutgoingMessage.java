package io.pigeon.sqs;

import java.util.Map;

/**
 * A message as SendMessage (or one entry of SendMessageBatch) gives it: its body, its message attributes and system
 * attributes as sent (null or empty: none), its delay in seconds (null: the queue's), its {@code MessageGroupId} and
 * {@code MessageDeduplicationId} (null: none). Checked by {@link SqsMessages}.
 */
public record OutgoingMessage(
        String body,
        Map<String, AttributeValue> attributes,
        Map<String, AttributeValue> systemAttributes,
        Integer delaySeconds,
        String groupId,
        String deduplicationId) {

    public OutgoingMessage(
            String body,
            Map<String, AttributeValue> attributes,
            Map<String, AttributeValue> systemAttributes,
            Integer delaySeconds) {
        this(body, attributes, systemAttributes, delaySeconds, null, null);
    }

    public static OutgoingMessage of(String body) {
        return new OutgoingMessage(body, null, null, null);
    }
}
