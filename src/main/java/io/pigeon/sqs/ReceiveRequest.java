package io.pigeon.sqs;

import java.util.Collection;
import java.util.List;
import java.util.Set;

/**
 * A ReceiveMessage as asked: at most {@code maxMessages} (1 to 10), hidden for {@code visibilityTimeout} seconds
 * (0 to 43,200; null: the queue's {@code VisibilityTimeout}), waiting up to {@code waitSeconds} (0 to 20;
 * null: the queue's own wait, {@code _claim_wait_seconds}), with the system attributes named in {@code
 * attributeNames} ({@code All}, {@code SenderId}, {@code SentTimestamp}, {@code ApproximateReceiveCount}, {@code
 * ApproximateFirstReceiveTimestamp}, {@code AWSTraceHeader}: {@code AttributeNames} and {@code
 * MessageSystemAttributeNames} together) and the message attributes named in {@code messageAttributeNames} (names,
 * {@code All}, {@code .*}, {@code prefix.*}); on a FIFO queue, {@code attemptId} is its {@code ReceiveRequestAttemptId}
 * (null: none; see {@link ReceiveAttempts}).
 */
public record ReceiveRequest(
        Integer maxMessages,
        Integer visibilityTimeout,
        Integer waitSeconds,
        Collection<String> attributeNames,
        Collection<String> messageAttributeNames,
        String attemptId) {

    /** A receive without a {@code ReceiveRequestAttemptId}. */
    public ReceiveRequest(
            Integer maxMessages,
            Integer visibilityTimeout,
            Integer waitSeconds,
            Collection<String> attributeNames,
            Collection<String> messageAttributeNames) {
        this(maxMessages, visibilityTimeout, waitSeconds, attributeNames, messageAttributeNames, null);
    }

    /** SQS's model's {@code MessageSystemAttributeName}: what {@code MessageSystemAttributeNames} may name. */
    static final Set<String> SYSTEM_NAMES = Set.of(
            "All",
            "SenderId",
            "SentTimestamp",
            "ApproximateReceiveCount",
            "ApproximateFirstReceiveTimestamp",
            "SequenceNumber",
            "MessageDeduplicationId",
            "MessageGroupId",
            "AWSTraceHeader",
            "DeadLetterQueueSourceArn");

    /**
     * SQS's model's {@code QueueAttributeName}, which types the older {@code AttributeNames} (SQS reads the system
     * names there too): a name of it is taken and, when not a system attribute, shows nothing.
     */
    static final Set<String> QUEUE_NAMES = Set.of(
            "All",
            "Policy",
            "VisibilityTimeout",
            "MaximumMessageSize",
            "MessageRetentionPeriod",
            "ApproximateNumberOfMessages",
            "ApproximateNumberOfMessagesNotVisible",
            "CreatedTimestamp",
            "LastModifiedTimestamp",
            "QueueArn",
            "ApproximateNumberOfMessagesDelayed",
            "DelaySeconds",
            "ReceiveMessageWaitTimeSeconds",
            "RedrivePolicy",
            "FifoQueue",
            "ContentBasedDeduplication",
            "KmsMasterKeyId",
            "KmsDataKeyReusePeriodSeconds",
            "DeduplicationScope",
            "FifoThroughputLimit",
            "RedriveAllowPolicy",
            "SqsManagedSseEnabled");

    /**
     * Refuses a name neither of SQS's enums holds ({@code InvalidAttributeName}, as GetQueueAttributes refuses one),
     * rather than answering as if it had not been asked: a typo would otherwise read as an attribute the message lacks.
     */
    public static void checkNames(Collection<String> attributeNames, Collection<String> systemAttributeNames) {
        for (String name : attributeNames) {
            if (!SYSTEM_NAMES.contains(name) && !QUEUE_NAMES.contains(name)) {
                throw SqsRefusal.unknownAttribute(name);
            }
        }
        for (String name : systemAttributeNames) {
            if (!SYSTEM_NAMES.contains(name)) {
                throw SqsRefusal.unknownAttribute(name);
            }
        }
    }

    /** One message, the queue's visibility timeout and wait, no attributes. */
    public static ReceiveRequest one() {
        return new ReceiveRequest(1, null, null, List.of(), List.of());
    }
}
