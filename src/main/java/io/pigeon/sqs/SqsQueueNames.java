package io.pigeon.sqs;

import io.pigeon.queue.QueueName;
import java.util.regex.Pattern;

/**
 * SQS's rule for a queue's name: 1 to 80 characters, letters, digits, hyphens and underscores. Wider than Zaqar's (64):
 * a queue named through SQS with more than 64 characters is listed through Zaqar's API, but no Zaqar path can name it.
 * A FIFO queue's name ends in {@code .fifo} (counted in the 80), and only a FIFO queue's does: that is how the SQS door
 * tells a FIFO queue (as AWS suggests clients do), without reading the queue. No Zaqar path names such a queue.
 */
public final class SqsQueueNames {

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]{1," + QueueName.MAX_STORED_LENGTH + "}");

    /** The suffix of a FIFO queue's name. */
    public static final String FIFO_SUFFIX = ".fifo";

    private static final Pattern FIFO_NAME =
            Pattern.compile("[A-Za-z0-9_-]{1," + (QueueName.MAX_STORED_LENGTH - FIFO_SUFFIX.length()) + "}\\.fifo");

    private SqsQueueNames() {}

    /** The queue a {@code QueueName} parameter names. */
    public static QueueName of(String name) {
        if (name.endsWith(FIFO_SUFFIX)) {
            if (!FIFO_NAME.matcher(name).matches()) {
                throw SqsRefusal.invalidValue("The name of a FIFO queue can only include alphanumeric characters,"
                        + " hyphens, or underscores, must end with .fifo suffix and be 1 to 80 in length.");
            }
            return QueueName.stored(name);
        }
        if (!NAME.matcher(name).matches()) {
            // AWS's own words for a bad name, which do not repeat the name.
            throw SqsRefusal.invalidValue("Can only include alphanumeric characters, hyphens, or underscores. 1 to "
                    + QueueName.MAX_STORED_LENGTH + " in length");
        }
        return QueueName.stored(name);
    }

    /** Whether {@code queue} is a FIFO queue: its name ends in {@code .fifo}. */
    public static boolean isFifo(QueueName queue) {
        return queue.value().endsWith(FIFO_SUFFIX);
    }
}
