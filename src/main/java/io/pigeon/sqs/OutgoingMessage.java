package io.pigeon.sqs;

import java.util.Map;

/**
 * A message as SendMessage (or one entry of SendMessageBatch) gives it: its body, its message attributes and system
 * attributes as sent (null or empty: none), its delay in seconds (null: the queue's), its {@code MessageGroupId} and
 * {@code MessageDeduplicationId} (null: none); and the request's {@code X-Amzn-Trace-Id} header (null: none), which
 * SQS stores as the message's {@code AWSTraceHeader} when the message sends none of its own. Checked by
 * {@link SqsMessages}.
 */
public record OutgoingMessage(
        String body,
        Map<String, AttributeValue> attributes,
        Map<String, AttributeValue> systemAttributes,
        Integer delaySeconds,
        String groupId,
        String deduplicationId,
        String requestTraceHeader) {

    public OutgoingMessage(
            String body,
            Map<String, AttributeValue> attributes,
            Map<String, AttributeValue> systemAttributes,
            Integer delaySeconds,
            String groupId,
            String deduplicationId) {
        this(body, attributes, systemAttributes, delaySeconds, groupId, deduplicationId, null);
    }

    public OutgoingMessage(
            String body,
            Map<String, AttributeValue> attributes,
            Map<String, AttributeValue> systemAttributes,
            Integer delaySeconds) {
        this(body, attributes, systemAttributes, delaySeconds, null, null);
    }

    /** This message, sent in a request whose {@code X-Amzn-Trace-Id} header is {@code header} (null: none). */
    public OutgoingMessage inRequestTracedBy(String header) {
        return new OutgoingMessage(body, attributes, systemAttributes, delaySeconds, groupId, deduplicationId, header);
    }

    public static OutgoingMessage of(String body) {
        return new OutgoingMessage(body, null, null, null);
    }
}
