package io.pigeon.sqs;

import io.pigeon.queue.QueueName;
import java.util.regex.Pattern;

/**
 * SQS's rule for a queue's name: 1 to 80 characters, letters, digits, hyphens and underscores. Wider than Zaqar's (64):
 * a queue named through SQS with more than 64 characters is listed through Zaqar's API, but no Zaqar path can name it.
 * A FIFO queue's name ends in {@code .fifo}; FIFO queues are not served yet, and such a name is refused as AWS refuses
 * an attribute it does not serve, never made a standard queue.
 */
public final class SqsQueueNames {

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]{1," + QueueName.MAX_STORED_LENGTH + "}");

    private SqsQueueNames() {}

    /** The queue a {@code QueueName} parameter names. */
    public static QueueName of(String name) {
        if (name.endsWith(".fifo")) {
            throw fifoNotServed();
        }
        if (!NAME.matcher(name).matches()) {
            // AWS's own words for a bad name, which do not repeat the name.
            throw SqsRefusal.invalidValue("Can only include alphanumeric characters, hyphens, or underscores. 1 to "
                    + QueueName.MAX_STORED_LENGTH + " in length");
        }
        return QueueName.stored(name);
    }

    static SqsRefusal fifoNotServed() {
        return new SqsRefusal(
                SqsRefusal.Reason.INVALID_ATTRIBUTE_NAME,
                "Unknown Attribute FifoQueue. This server does not serve FIFO queues yet.");
    }
}
