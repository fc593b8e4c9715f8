package io.pigeon.sqs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pigeon.queue.QueueName;
import io.pigeon.queue.ReservedAttributes;
import java.util.List;
import java.util.Map;

/**
 * SQS's FIFO queue attributes on a queue's metadata: {@code FifoQueue} (only at creation, agreeing with the name's
 * {@code .fifo}) makes the queue ordered by groups ({@code _ordering: "fifo"}); {@code ContentBasedDeduplication} is
 * {@code _content_based_deduplication}; {@code DeduplicationScope} ({@code queue} or {@code messageGroup}) is
 * {@code _deduplication_scope} ({@code queue} or {@code group}); {@code FifoThroughputLimit} ({@code perQueue} or
 * {@code perMessageGroupId}, the latter only with {@code DeduplicationScope=messageGroup}) is kept and shown under
 * {@value #THROUGHPUT_LIMIT}: Pigeon has no throughput quota to apply it to. A standard queue does not take them
 * ({@code InvalidAttributeName}, as AWS answers).
 */
final class FifoAttributes {

    static final String FIFO_QUEUE = "FifoQueue";
    static final String CONTENT_BASED_DEDUPLICATION = "ContentBasedDeduplication";
    static final String DEDUPLICATION_SCOPE = "DeduplicationScope";
    static final String FIFO_THROUGHPUT_LIMIT = "FifoThroughputLimit";

    /** Every FIFO attribute's name, in the order GetQueueAttributes shows them. */
    static final List<String> NAMES =
            List.of(FIFO_QUEUE, CONTENT_BASED_DEDUPLICATION, DEDUPLICATION_SCOPE, FIFO_THROUGHPUT_LIMIT);

    /** Pigeon's key for FifoThroughputLimit, kept and shown only. */
    static final String THROUGHPUT_LIMIT = "_sqs_fifo_throughput_limit";

    static final String SCOPE_QUEUE = "queue";
    static final String SCOPE_GROUP = "messageGroup";
    static final String PER_QUEUE = "perQueue";
    static final String PER_GROUP = "perMessageGroupId";

    private FifoAttributes() {}

    /**
     * Whether a queue created as {@code queue} with {@code FifoQueue} {@code asked} (null: not named) is a FIFO queue:
     * a name ending in {@code .fifo} needs {@code FifoQueue=true}, and {@code FifoQueue=true} needs such a name
     * ({@code InvalidParameterValue}, as AWS answers both).
     */
    static boolean created(QueueName queue, String asked) {
        boolean named = SqsQueueNames.isFifo(queue);
        if (asked != null && !asked.equalsIgnoreCase("true") && !asked.equalsIgnoreCase("false")) {
            throw SqsRefusal.invalidAttributeValue(FIFO_QUEUE, "must be true or false.");
        }
        boolean fifo = asked != null && asked.equalsIgnoreCase("true");
        if (named != fifo) {
            throw SqsRefusal.invalidValue(
                    "The name of a FIFO queue can only include alphanumeric characters, hyphens, or underscores, must"
                            + " end with .fifo suffix and be 1 to 80 in length.");
        }
        return fifo;
    }

    /** Puts the metadata change of FIFO attribute {@code name} into {@code keys}; refused on a standard queue. */
    static void change(String name, String value, boolean fifo, Map<String, JsonNode> keys) {
        if (!fifo) {
            throw SqsRefusal.unknownAttribute(name);
        }
        JsonNodeFactory json = JsonNodeFactory.instance;
        switch (name) {
            case CONTENT_BASED_DEDUPLICATION -> keys.put(
                    ReservedAttributes.CONTENT_BASED_DEDUPLICATION, bool(name, value) ? json.booleanNode(true) : null);
            case DEDUPLICATION_SCOPE -> {
                if (!SCOPE_QUEUE.equals(value) && !SCOPE_GROUP.equals(value)) {
                    throw SqsRefusal.invalidAttributeValue(name, "must be " + SCOPE_QUEUE + " or " + SCOPE_GROUP + ".");
                }
                keys.put(
                        ReservedAttributes.DEDUPLICATION_SCOPE,
                        SCOPE_GROUP.equals(value) ? json.textNode(ReservedAttributes.SCOPE_GROUP) : null);
            }
            default -> {
                if (!PER_QUEUE.equals(value) && !PER_GROUP.equals(value)) {
                    throw SqsRefusal.invalidAttributeValue(name, "must be " + PER_QUEUE + " or " + PER_GROUP + ".");
                }
                keys.put(THROUGHPUT_LIMIT, PER_GROUP.equals(value) ? json.textNode(PER_GROUP) : null);
            }
        }
    }

    /**
     * AWS's rule between the two high-throughput attributes: {@code perMessageGroupId} only with
     * {@code DeduplicationScope=messageGroup}, on the queue as it will be ({@code current} with {@code keys} applied;
     * null current: a new queue).
     */
    static void checkCombination(Map<String, JsonNode> keys, ObjectNode current) {
        JsonNode limit = keys.containsKey(THROUGHPUT_LIMIT)
                ? keys.get(THROUGHPUT_LIMIT)
                : current == null ? null : current.get(THROUGHPUT_LIMIT);
        JsonNode scope = keys.containsKey(ReservedAttributes.DEDUPLICATION_SCOPE)
                ? keys.get(ReservedAttributes.DEDUPLICATION_SCOPE)
                : current == null ? null : current.get(ReservedAttributes.DEDUPLICATION_SCOPE);
        boolean perGroup = limit != null && PER_GROUP.equals(limit.textValue());
        boolean groupScope = scope != null && ReservedAttributes.SCOPE_GROUP.equals(scope.textValue());
        if (perGroup && !groupScope) {
            throw SqsRefusal.invalidAttributeValue(
                    FIFO_THROUGHPUT_LIMIT,
                    "The perMessageGroupId value is allowed only when the value for DeduplicationScope is "
                            + SCOPE_GROUP + ".");
        }
    }

    /** A FIFO queue's attributes as GetQueueAttributes shows them, defaults where unset. */
    static void values(ObjectNode metadata, Map<String, String> values) {
        JsonNode content = metadata.get(ReservedAttributes.CONTENT_BASED_DEDUPLICATION);
        JsonNode scope = metadata.get(ReservedAttributes.DEDUPLICATION_SCOPE);
        JsonNode limit = metadata.get(THROUGHPUT_LIMIT);
        values.put(FIFO_QUEUE, "true");
        values.put(
                CONTENT_BASED_DEDUPLICATION,
                Boolean.toString(content != null && content.isBoolean() && content.booleanValue()));
        values.put(
                DEDUPLICATION_SCOPE,
                scope != null && ReservedAttributes.SCOPE_GROUP.equals(scope.textValue()) ? SCOPE_GROUP : SCOPE_QUEUE);
        values.put(FIFO_THROUGHPUT_LIMIT, limit != null && PER_GROUP.equals(limit.textValue()) ? PER_GROUP : PER_QUEUE);
    }

    private static boolean bool(String name, String value) {
        if (value.equalsIgnoreCase("true")) {
            return true;
        }
        if (value.equalsIgnoreCase("false")) {
            return false;
        }
        throw SqsRefusal.invalidAttributeValue(name, "must be true or false.");
    }
}
