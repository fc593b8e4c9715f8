package io.pigeon.queue;

import io.pigeon.rules.Rejection;
import java.util.regex.Pattern;

/**
 * The name a queue or a topic is stored under, valid by construction. A queue's is its name: 1 to 64 bytes of
 * US-ASCII letters, digits, underscores and hyphens as Zaqar's paths name it ({@link #of}), or up to {@value
 * #MAX_STORED_LENGTH} as the SQS API may create it (io.pigeon.sqs), a FIFO queue's ending in {@code .fifo}; a longer
 * one, or a FIFO queue, is listed through Zaqar but no Zaqar path can name it. A topic is stored as a queue whose
 * name is {@value #TOPIC_PREFIX} followed by the topic's name (1 to 64 letters, digits, underscores, hyphens and
 * dots, as Zaqar's): no queue name contains that character, so a topic and a queue of the same name are apart, every
 * queue statement serves topics unchanged, and all topics sort after all queues. The edge makes one from a path
 * segment with {@link #of} (a queue) or {@link #topic} (a topic), so that no queue path can name a topic; every
 * service takes this type, so no service checks a name again.
 */
public record QueueName(String value) {

    public static final int MAX_LENGTH = 64;
    /** The longest queue name stored: SQS's bound; only the SQS API creates one longer than {@link #MAX_LENGTH}. */
    public static final int MAX_STORED_LENGTH = 80;
    /** The first character of a topic's stored name: above every character a queue or topic name may hold. */
    public static final String TOPIC_PREFIX = "~";
    /** Above every stored topic name, in byte order: the end of the topics' range. */
    public static final String AFTER_TOPICS = "\u007f";

    private static final Pattern QUEUE = Pattern.compile("[A-Za-z0-9_-]{1," + MAX_LENGTH + "}");
    private static final Pattern TOPIC = Pattern.compile("[A-Za-z0-9_.-]{1," + MAX_LENGTH + "}");
    /** Up to 80 characters as SQS names a queue, a FIFO queue's with the suffix {@code .fifo} (counted in the 80). */
    private static final Pattern STORED_QUEUE = Pattern.compile(
            "[A-Za-z0-9_-]{1," + MAX_STORED_LENGTH + "}|[A-Za-z0-9_-]{1," + (MAX_STORED_LENGTH - 5) + "}\\.fifo");

    public QueueName {
        if (value == null
                || !(STORED_QUEUE.matcher(value).matches()
                        || value.startsWith(TOPIC_PREFIX)
                                && TOPIC.matcher(value.substring(1)).matches())) {
            throw invalidQueueName();
        }
    }

    /** A queue's name, as a path names it. */
    public static QueueName of(String value) {
        if (value == null || !QUEUE.matcher(value).matches()) {
            throw invalidQueueName();
        }
        return new QueueName(value);
    }

    /**
     * A queue's name of up to {@value #MAX_STORED_LENGTH} characters, never a topic's: as a queue's metadata names its
     * dead-letter queue, and as the SQS API names queues.
     */
    public static QueueName stored(String value) {
        if (value == null || !STORED_QUEUE.matcher(value).matches()) {
            throw invalidQueueName();
        }
        return new QueueName(value);
    }

    /** A topic's, as a path names it (Zaqar's message, which does not say why). */
    public static QueueName topic(String name) {
        if (name == null || !TOPIC.matcher(name).matches()) {
            throw new Rejection(
                    Rejection.Reason.INVALID_TOPIC_IDENTIFICATION,
                    "The format of the submitted topic name or project id is not valid. Topic names are 1 to "
                            + MAX_LENGTH + " bytes of ASCII letters, digits, underscores, hyphens and dots.");
        }
        return new QueueName(TOPIC_PREFIX + name);
    }

    private static Rejection invalidQueueName() {
        return new Rejection(
                Rejection.Reason.INVALID_IDENTIFICATION,
                "The format of the submitted queue name or project id is not valid. Queue names are 1 to " + MAX_LENGTH
                        + " bytes of ASCII letters, digits, underscores and hyphens.");
    }

    public boolean isTopic() {
        return value.startsWith(TOPIC_PREFIX);
    }

    /** The name a client knows: the queue's, or the topic's without its prefix. */
    public String name() {
        return isTopic() ? value.substring(TOPIC_PREFIX.length()) : value;
    }

    /** "queue" or "topic", for messages that name one. */
    public String kind() {
        return isTopic() ? "topic" : "queue";
    }

    @Override
    public String toString() {
        return name();
    }
}
