package io.pigeon.sqs;

/**
 * SQS's rules for a sent message's {@code MessageGroupId} and {@code MessageDeduplicationId} by queue type: each 1 to
 * 128 alphanumeric and punctuation characters; a FIFO queue requires a group and refuses a per-message delay (but 0); a
 * standard queue takes a group (a fair queue's tenant) but no deduplication id. Each refusal as AWS answers it.
 */
public final class MessageGroupRules {

    static final int MAX_LENGTH = 128;
    private static final String NOT_FOR_THIS_QUEUE_TYPE =
            "The request include parameter that is not valid for this" + " queue type.";

    private MessageGroupRules() {}

    static void check(OutgoingMessage message, boolean fifo) {
        token("MessageGroupId", message.groupId());
        token("MessageDeduplicationId", message.deduplicationId());
        if (fifo) {
            if (message.groupId() == null) {
                throw SqsRefusal.missingParameter("MessageGroupId");
            }
            // A delay of 0 is no per-message delay: SQS takes it (and SDK batches write it) on a FIFO queue.
            if (message.delaySeconds() != null && message.delaySeconds() != 0) {
                throw SqsRefusal.invalidParameter(
                        "DelaySeconds", message.delaySeconds().toString(), NOT_FOR_THIS_QUEUE_TYPE);
            }
        } else if (message.deduplicationId() != null) {
            throw SqsRefusal.invalidParameter(
                    "MessageDeduplicationId", message.deduplicationId(), NOT_FOR_THIS_QUEUE_TYPE);
        }
    }

    /**
     * Checks a ReceiveMessage's {@code ReceiveRequestAttemptId} (null: none) by AWS's bound: 1 to 128 alphanumeric and
     * punctuation characters (a FIFO queue replays a receive by it: {@link ReceiveAttempts}).
     */
    public static void checkAttemptId(String attemptId) {
        token("ReceiveRequestAttemptId", attemptId);
    }

    /** The refusal of a FIFO message with no deduplication id on a queue that does not deduplicate by content. */
    static SqsRefusal noDeduplicationId() {
        return SqsRefusal.invalidValue("The queue should either have ContentBasedDeduplication enabled or"
                + " MessageDeduplicationId provided explicitly");
    }

    private static void token(String name, String value) {
        if (value == null) {
            return;
        }
        boolean valid = !value.isEmpty() && value.length() <= MAX_LENGTH;
        for (int i = 0; valid && i < value.length(); i++) {
            valid = value.charAt(i) >= 0x21 && value.charAt(i) <= 0x7e;
        }
        if (!valid) {
            throw SqsRefusal.invalidParameter(
                    name,
                    value,
                    name + " can only include alphanumeric and punctuation characters. 1 to " + MAX_LENGTH
                            + " in length.");
        }
    }
}
