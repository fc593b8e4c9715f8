package io.pigeon.sqs;

import io.pigeon.message.Message;
import io.pigeon.queue.QueueName;
import java.time.OffsetDateTime;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The system attributes a received message carries when asked ({@code AttributeNames} / {@code
 * MessageSystemAttributeNames}), from Zaqar's row: {@code ApproximateReceiveCount} is its claim count, {@code
 * SentTimestamp} its creation, {@code ApproximateFirstReceiveTimestamp} its first claim (through either API), {@code
 * SenderId} its client id (Zaqar's {@code Client-ID}, or the one the SQS door chose for the sender), {@code
 * AWSTraceHeader} the one it was sent with (or the W3C trace context a message posted through Zaqar carries, in X-Ray's
 * form); {@code MessageGroupId} its group (a FIFO or fair queue's), {@code
 * MessageDeduplicationId} the one a FIFO message was deduplicated by (given, or its body's hash), {@code SequenceNumber}
 * a FIFO queue's ({@link SequenceNumbers}). Timestamps in epoch milliseconds, as SQS writes them.
 */
final class SystemAttributes {

    static final String ALL = "All";
    static final String SENDER_ID = "SenderId";
    static final String SENT_TIMESTAMP = "SentTimestamp";
    static final String RECEIVE_COUNT = "ApproximateReceiveCount";
    static final String FIRST_RECEIVE = "ApproximateFirstReceiveTimestamp";
    static final String GROUP_ID = "MessageGroupId";
    static final String DEDUPLICATION_ID = "MessageDeduplicationId";
    static final String SEQUENCE_NUMBER = "SequenceNumber";

    private SystemAttributes() {}

    private static boolean asked(Collection<String> names, String name) {
        return names.contains(ALL) || names.contains(name);
    }

    /** Whether any attribute asked for is read from the stored row (all but the receive count). */
    static boolean needStoredRow(Collection<String> names) {
        return asked(names, SENDER_ID)
                || asked(names, SENT_TIMESTAMP)
                || asked(names, FIRST_RECEIVE)
                || asked(names, MessageAttributes.TRACE_HEADER)
                || asked(names, DEDUPLICATION_ID)
                || asked(names, GROUP_ID);
    }

    static Map<String, String> of(
            Collection<String> names,
            Message message,
            SqsMessageStore.Extras stored,
            StoredAttributes storedAttributes,
            QueueName queue) {
        MessageAttributes system = storedAttributes.system();
        Map<String, String> attributes = new LinkedHashMap<>();
        if (names.isEmpty()) {
            return attributes;
        }
        if (asked(names, RECEIVE_COUNT)) {
            attributes.put(RECEIVE_COUNT, Integer.toString(message.claimCount()));
        }
        if (stored != null) {
            if (asked(names, SENDER_ID) && stored.clientId() != null) {
                attributes.put(SENDER_ID, stored.clientId().toString());
            }
            if (asked(names, SENT_TIMESTAMP)) {
                attributes.put(SENT_TIMESTAMP, millis(stored.sentAt()));
            }
            if (asked(names, FIRST_RECEIVE) && stored.firstReceivedAt() != null) {
                attributes.put(FIRST_RECEIVE, millis(stored.firstReceivedAt()));
            }
        }
        String group = message.group() != null ? message.group() : stored == null ? null : stored.group();
        if (asked(names, GROUP_ID) && group != null) {
            attributes.put(GROUP_ID, group);
        }
        if (asked(names, DEDUPLICATION_ID) && storedAttributes.deduplicationId() != null) {
            attributes.put(DEDUPLICATION_ID, storedAttributes.deduplicationId());
        }
        if (asked(names, SEQUENCE_NUMBER) && SqsQueueNames.isFifo(queue)) {
            attributes.put(SEQUENCE_NUMBER, SequenceNumbers.of(message.id()));
        }
        AttributeValue trace = system.byName().get(MessageAttributes.TRACE_HEADER);
        if (asked(names, MessageAttributes.TRACE_HEADER)) {
            // As sent through SQS; else the W3C context it carries (posted through Zaqar) in X-Ray's form.
            if (trace != null) {
                attributes.put(MessageAttributes.TRACE_HEADER, trace.stringValue());
            } else if (message.trace() != null) {
                attributes.put(MessageAttributes.TRACE_HEADER, XRayTraceHeaders.header(message.trace()));
            }
        }
        return attributes;
    }

    private static String millis(OffsetDateTime time) {
        return Long.toString(time.toInstant().toEpochMilli());
    }
}
