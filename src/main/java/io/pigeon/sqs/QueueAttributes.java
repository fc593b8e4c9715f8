package io.pigeon.sqs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pigeon.config.PigeonConfig;
import io.pigeon.queue.ClaimWaitSettings;
import io.pigeon.queue.Ordering;
import io.pigeon.queue.QueueName;
import io.pigeon.queue.ReservedAttributes;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * SQS's settable queue attributes on a queue's metadata: each mapped onto the Zaqar reserved attribute that means the
 * same where one exists, stored beside them under Pigeon's own keys where none does, with SQS's bounds (narrowed to the
 * deployment's where its limit is lower). One source of truth, so that a queue set through either API reads the same
 * through the other.
 *
 * <ul>
 *   <li>{@code DelaySeconds} (0-900): {@code _default_message_delay}.
 *   <li>{@code MaximumMessageSize} (1,024-1,048,576, at most {@code pigeon.max-messages-post-size}):
 *       {@code _max_messages_post_size}.
 *   <li>{@code MessageRetentionPeriod} (60-1,209,600, at most {@code pigeon.max-message-ttl}):
 *       {@code _default_message_ttl}.
 *   <li>{@code ReceiveMessageWaitTimeSeconds} (0-20, at most {@code pigeon.claim-wait.max}):
 *       {@code _claim_wait_seconds}.
 *   <li>{@code RedrivePolicy}: {@code _dead_letter_queue} and {@code _max_claim_count} (1-1,000).
 *   <li>{@code VisibilityTimeout} (0-43,200): {@value #VISIBILITY_TIMEOUT} (Zaqar's claims name their own TTL).
 *   <li>{@code RedriveAllowPolicy}: {@value #REDRIVE_ALLOW_POLICY}, kept and shown, not enforced.
 * </ul>
 *
 * <p>A FIFO queue (its name ends in {@code .fifo}; {@link SqsQueueNames}) is created with {@code FifoQueue=true} and
 * ordered by groups ({@code _ordering: "fifo"}); only it takes {@link FifoAttributes}' attributes.
 */
@ApplicationScoped
public class QueueAttributes {

    public static final String VISIBILITY_TIMEOUT = "_sqs_visibility_timeout";
    public static final String REDRIVE_ALLOW_POLICY = "_sqs_redrive_allow_policy";

    /** SQS's default visibility timeout, for a queue that sets none. */
    public static final int DEFAULT_VISIBILITY_TIMEOUT = 30;
    /** SQS's default retention (4 days), given to a queue created through SQS without one. */
    static final int DEFAULT_RETENTION = 345_600;

    /** The attributes a caller may set, in the order GetQueueAttributes shows them. */
    public static final List<String> SETTABLE = List.of(
            "VisibilityTimeout",
            "MaximumMessageSize",
            "MessageRetentionPeriod",
            "DelaySeconds",
            "ReceiveMessageWaitTimeSeconds",
            "RedrivePolicy",
            "RedriveAllowPolicy");

    /** SQS's attributes Pigeon does not serve: named, they are refused, never silently ignored. */
    static final Set<String> NOT_SERVED =
            Set.of("Policy", "KmsMasterKeyId", "KmsDataKeyReusePeriodSeconds", "SqsManagedSseEnabled");

    private static final Pattern DIGITS = Pattern.compile("[0-9]{1,10}");
    private static final Pattern ARN =
            Pattern.compile("arn:[a-z-]+:sqs:[a-z0-9-]*:([0-9]{12}):([A-Za-z0-9_-]{1,75}\\.fifo|[A-Za-z0-9_-]{1,80})");

    /** Changes to a queue's metadata: each key's new value, or null to remove it; the dead-letter queue named. */
    public record Changes(Map<String, JsonNode> keys, QueueName deadLetterQueue) {

        /** {@code metadata} changed (in place) and returned. */
        public ObjectNode applyTo(ObjectNode metadata) {
            keys.forEach((key, value) -> {
                if (value == null) {
                    metadata.remove(key);
                } else {
                    metadata.set(key, value);
                }
            });
            return metadata;
        }
    }

    private final PigeonConfig config;
    private final ClaimWaitSettings claimWait;
    private final SqsSettings settings;

    public QueueAttributes(PigeonConfig config, ClaimWaitSettings claimWait, SqsSettings settings) {
        this.config = config;
        this.claimWait = claimWait;
        this.settings = settings;
    }

    /**
     * The metadata changes {@code given} asks for of a queue ({@code fifo}: a FIFO queue), checked against SQS's bounds;
     * nothing is changed here. {@code FifoQueue} is named only at creation ({@link #creation}).
     */
    public Changes changes(Map<String, String> given, String account, boolean fifo) {
        Map<String, JsonNode> keys = new LinkedHashMap<>();
        QueueName deadLetterQueue = null;
        JsonNodeFactory json = JsonNodeFactory.instance;
        for (Map.Entry<String, String> attribute : given.entrySet()) {
            String name = attribute.getKey();
            String value = attribute.getValue();
            switch (name) {
                case "DelaySeconds" -> keys.put(
                        ReservedAttributes.DEFAULT_MESSAGE_DELAY,
                        json.numberNode(integer(name, value, 0, Math.min(900, config.maxMessageDelay()))));
                case "MaximumMessageSize" -> keys.put(
                        ReservedAttributes.MAX_MESSAGES_POST_SIZE,
                        json.numberNode(integer(name, value, 1024, Math.min(1_048_576, config.maxMessagesPostSize()))));
                case "MessageRetentionPeriod" -> keys.put(
                        ReservedAttributes.DEFAULT_MESSAGE_TTL,
                        json.numberNode(integer(name, value, 60, Math.min(1_209_600, config.maxMessageTtl()))));
                case "ReceiveMessageWaitTimeSeconds" -> keys.put(
                        ReservedAttributes.CLAIM_WAIT_SECONDS,
                        json.numberNode(integer(name, value, 0, Math.min(20, claimWait.max()))));
                case "VisibilityTimeout" -> keys.put(
                        VISIBILITY_TIMEOUT, json.numberNode(integer(name, value, 0, 43_200)));
                case "RedrivePolicy" -> {
                    RedrivePolicy policy = RedrivePolicy.read(value, account);
                    if (policy != null && SqsQueueNames.isFifo(policy.queue()) != fifo) {
                        // AWS's rule: a FIFO queue's dead-letter queue is a FIFO queue, a standard queue's standard.
                        throw SqsRefusal.invalidAttributeValue(
                                "RedrivePolicy",
                                "the dead-letter queue must be of the same type as the queue (FIFO or standard).");
                    }
                    keys.put(
                            ReservedAttributes.DEAD_LETTER_QUEUE,
                            policy == null ? null : json.textNode(policy.queue().value()));
                    keys.put(
                            ReservedAttributes.MAX_CLAIM_COUNT,
                            policy == null ? null : json.numberNode(policy.maxReceiveCount()));
                    deadLetterQueue = policy == null ? null : policy.queue();
                }
                case "RedriveAllowPolicy" -> keys.put(REDRIVE_ALLOW_POLICY, RedriveAllowPolicy.read(value));
                case FifoAttributes.FIFO_QUEUE -> throw new SqsRefusal(
                        SqsRefusal.Reason.INVALID_ATTRIBUTE_NAME,
                        "Unknown Attribute FifoQueue. A queue's type is chosen when it is created and cannot change.");
                case FifoAttributes.CONTENT_BASED_DEDUPLICATION,
                        FifoAttributes.DEDUPLICATION_SCOPE,
                        FifoAttributes.FIFO_THROUGHPUT_LIMIT -> FifoAttributes.change(name, value, fifo, keys);
                default -> throw NOT_SERVED.contains(name)
                        ? new SqsRefusal(
                                SqsRefusal.Reason.INVALID_ATTRIBUTE_NAME,
                                "Unknown Attribute " + name + ". This server does not serve it.")
                        : SqsRefusal.unknownAttribute(name);
            }
        }
        return new Changes(keys, deadLetterQueue);
    }

    /**
     * The changes a queue created through SQS as {@code queue} starts with: SQS's retention unless {@code given} names
     * one; a FIFO queue's ordering by groups. {@code FifoQueue} must agree with the name, as AWS checks.
     */
    public Changes creation(Map<String, String> given, String account, QueueName queue) {
        Changes changes = asked(given, account, queue);
        boolean fifo = SqsQueueNames.isFifo(queue);
        if (fifo) {
            changes.keys().put(ReservedAttributes.ORDERING, JsonNodeFactory.instance.textNode(Ordering.FIFO.value()));
        }
        if (!given.containsKey("MessageRetentionPeriod")) {
            changes.keys()
                    .put(
                            ReservedAttributes.DEFAULT_MESSAGE_TTL,
                            JsonNodeFactory.instance.numberNode(Math.min(DEFAULT_RETENTION, config.maxMessageTtl())));
        }
        return changes;
    }

    /**
     * The changes a CreateQueue of {@code queue} names (without the defaults of a new queue), to compare with an
     * existing queue's; {@code FifoQueue} checked against the name.
     */
    public Changes asked(Map<String, String> given, String account, QueueName queue) {
        boolean fifo = FifoAttributes.created(queue, given.get(FifoAttributes.FIFO_QUEUE));
        Map<String, String> rest = new LinkedHashMap<>(given);
        rest.remove(FifoAttributes.FIFO_QUEUE);
        Changes changes = changes(rest, account, fifo);
        FifoAttributes.checkCombination(changes.keys(), null);
        return changes;
    }

    /**
     * Every settable attribute's value on a queue with {@code metadata} (defaults where unset), in SQS's spelling; a
     * FIFO queue's ({@code fifo}) with its own.
     */
    public Map<String, String> values(ObjectNode metadata, String account, boolean fifo) {
        Map<String, String> values = new LinkedHashMap<>();
        values.put("VisibilityTimeout", text(metadata, VISIBILITY_TIMEOUT, DEFAULT_VISIBILITY_TIMEOUT));
        values.put(
                "MaximumMessageSize",
                text(metadata, ReservedAttributes.MAX_MESSAGES_POST_SIZE, config.maxMessagesPostSize()));
        values.put(
                "MessageRetentionPeriod",
                text(metadata, ReservedAttributes.DEFAULT_MESSAGE_TTL, config.defaultMessageTtl()));
        values.put("DelaySeconds", text(metadata, ReservedAttributes.DEFAULT_MESSAGE_DELAY, 0));
        values.put("ReceiveMessageWaitTimeSeconds", text(metadata, ReservedAttributes.CLAIM_WAIT_SECONDS, 0));
        JsonNode deadLetterQueue = metadata.get(ReservedAttributes.DEAD_LETTER_QUEUE);
        JsonNode maxClaimCount = metadata.get(ReservedAttributes.MAX_CLAIM_COUNT);
        if (deadLetterQueue != null
                && deadLetterQueue.isTextual()
                && maxClaimCount != null
                && maxClaimCount.canConvertToInt()) {
            values.put(
                    "RedrivePolicy",
                    new RedrivePolicy(QueueName.stored(deadLetterQueue.textValue()), maxClaimCount.intValue())
                            .text(arn(account, deadLetterQueue.textValue())));
        }
        JsonNode allowPolicy = metadata.get(REDRIVE_ALLOW_POLICY);
        if (allowPolicy != null && allowPolicy.isObject()) {
            values.put("RedriveAllowPolicy", allowPolicy.toString());
        }
        if (fifo) {
            FifoAttributes.values(metadata, values);
        }
        return values;
    }

    /**
     * The queue's visibility timeout in seconds: what a receive that names none holds its messages for. Kept within
     * SQS's 0 to 43,200, as a Zaqar client may have written any number there.
     */
    public static int visibilityTimeout(ObjectNode metadata) {
        int stored = Integer.parseInt(text(metadata, VISIBILITY_TIMEOUT, DEFAULT_VISIBILITY_TIMEOUT));
        return Math.max(0, Math.min(SqsMessages.MAX_VISIBILITY_TIMEOUT, stored));
    }

    /** A queue's ARN: {@code arn:aws:sqs:<region>:<account>:<name>}. */
    public String arn(String account, String name) {
        return "arn:aws:sqs:" + settings.region() + ":" + account + ":" + name;
    }

    /** The account and queue name of a queue's ARN; null when it is not one. */
    static String[] readArn(String arn) {
        Matcher read = ARN.matcher(arn);
        return read.matches() ? new String[] {read.group(1), read.group(2)} : null;
    }

    private static int integer(String name, String value, int min, int max) {
        String text = value.trim();
        if (!DIGITS.matcher(text).matches() || Long.parseLong(text) < min || Long.parseLong(text) > max) {
            throw SqsRefusal.invalidAttributeValue(name, "must be an integer from " + min + " to " + max + ".");
        }
        return Integer.parseInt(text);
    }

    /** An integer attribute as stored, or its default when unset or not an integer (a Zaqar client may set anything). */
    private static String text(ObjectNode metadata, String key, int defaultValue) {
        JsonNode value = metadata.get(key);
        return Integer.toString(
                value != null && value.isIntegralNumber() && value.canConvertToInt() ? value.intValue() : defaultValue);
    }
}
