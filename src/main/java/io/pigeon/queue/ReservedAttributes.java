package io.pigeon.queue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pigeon.config.PigeonConfig;
import io.pigeon.dispatch.RetrySchedule;
import io.pigeon.encryption.MessageCipher;
import io.pigeon.rules.Rejection;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The reserved queue attributes of v2 (keys starting with an underscore in a queue's metadata): their
 * defaults, shown when a queue does not set them, and the bounds a queue's own values must keep.
 */
@ApplicationScoped
public class ReservedAttributes {

    public static final String MAX_MESSAGES_POST_SIZE = "_max_messages_post_size";
    public static final String DEFAULT_MESSAGE_TTL = "_default_message_ttl";
    public static final String DEFAULT_MESSAGE_DELAY = "_default_message_delay";
    public static final String DEAD_LETTER_QUEUE = "_dead_letter_queue";
    public static final String DEAD_LETTER_QUEUE_MESSAGES_TTL = "_dead_letter_queue_messages_ttl";
    public static final String MAX_CLAIM_COUNT = "_max_claim_count";
    public static final String ENABLE_ENCRYPT_MESSAGES = "_enable_encrypt_messages";
    /** The flavor of pools the queue is placed among when it is created (Zaqar's); not shown unless set. */
    public static final String FLAVOR = "_flavor";
    /** How notifications to the queue's subscribers are retried; not shown unless set. */
    public static final String RETRY_POLICY = "_retry_policy";
    /**
     * How long the queue's claims and pops that name no wait wait for a message (Pigeon's long polling; 0: Zaqar's
     * answer at once); not shown unless set.
     */
    public static final String CLAIM_WAIT_SECONDS = "_claim_wait_seconds";
    /**
     * Pigeon's: how long, in seconds, the queue remembers the Idempotency-Key of a post and the dedup_id of a message;
     * not shown unless set (Zaqar has no such attribute, and its clients compare the metadata they read).
     */
    public static final String DEDUP_WINDOW_SECONDS = "_dedup_window_seconds";
    /**
     * Pigeon's: whether a message posted without a dedup_id is deduplicated by its content (SQS's
     * ContentBasedDeduplication; see message/DeduplicationKeys); not shown unless set.
     */
    public static final String CONTENT_BASED_DEDUPLICATION = "_content_based_deduplication";
    /**
     * Pigeon's: whether a dedup_id is remembered per queue ({@value #SCOPE_QUEUE}, the default) or per message group
     * ({@value #SCOPE_GROUP}; SQS's DeduplicationScope); not shown unless set.
     */
    public static final String DEDUPLICATION_SCOPE = "_deduplication_scope";

    public static final String SCOPE_QUEUE = "queue";
    public static final String SCOPE_GROUP = "group";
    /**
     * Pigeon's: how the queue's claims choose by the messages' groups ({@link Ordering}: {@code "none"}, the default,
     * {@code "fifo"} or {@code "fair"}); not shown unless set, as Zaqar has no such attribute.
     */
    public static final String ORDERING = "_ordering";

    /** Every reserved attribute: each always has a value, its default when the queue sets none. */
    public static final Set<String> ALL = Set.of(
            MAX_MESSAGES_POST_SIZE,
            DEFAULT_MESSAGE_TTL,
            DEFAULT_MESSAGE_DELAY,
            DEAD_LETTER_QUEUE,
            DEAD_LETTER_QUEUE_MESSAGES_TTL,
            MAX_CLAIM_COUNT,
            ENABLE_ENCRYPT_MESSAGES);

    /**
     * Pigeon's own attributes that have a default but are shown only when set: {@code null} is their unset value, so
     * a queue's metadata never stores them as {@code null} (see {@link #withoutUnset}).
     */
    public static final Set<String> SHOWN_WHEN_SET = Set.of(
            CLAIM_WAIT_SECONDS, DEDUP_WINDOW_SECONDS, ORDERING, CONTENT_BASED_DEDUPLICATION, DEDUPLICATION_SCOPE);

    /**
     * Every attribute a patch may replace or remove while the queue does not set it, removing it restoring its
     * default: Zaqar's reserved ones ({@link #ALL}, as Zaqar does) and Pigeon's own with a default. Others (a plain
     * key, {@code _flavor}, {@code _retry_policy}) are 409 when absent, as in Zaqar.
     */
    public static final Set<String> PATCHABLE_WHEN_UNSET =
            Stream.concat(ALL.stream(), SHOWN_WHEN_SET.stream()).collect(Collectors.toUnmodifiableSet());

    private final PigeonConfig config;
    private final IdempotencySettings idempotencySettings;
    private final ClaimWaitSettings claimWaitSettings;
    private final MessageCipher cipher;

    public ReservedAttributes(
            PigeonConfig config,
            IdempotencySettings idempotencySettings,
            ClaimWaitSettings claimWaitSettings,
            MessageCipher cipher) {
        this.config = config;
        this.idempotencySettings = idempotencySettings;
        this.claimWaitSettings = claimWaitSettings;
        this.cipher = cipher;
    }

    /** {@code metadata} with every reserved attribute it does not set, at its default. */
    public ObjectNode withDefaults(ObjectNode metadata) {
        return withDefaults(metadata, false);
    }

    /**
     * {@code metadata} with the reserved attributes it does not set at their defaults: for a topic only those of
     * posting (Zaqar shows no others for a topic: its messages are not claimed).
     */
    public ObjectNode withDefaults(ObjectNode metadata, boolean topic) {
        ObjectNode shown = withoutUnset(metadata).deepCopy();
        shown.putIfAbsent(MAX_MESSAGES_POST_SIZE, JsonNodeFactory.instance.numberNode(config.maxMessagesPostSize()));
        shown.putIfAbsent(DEFAULT_MESSAGE_TTL, JsonNodeFactory.instance.numberNode(config.defaultMessageTtl()));
        shown.putIfAbsent(DEFAULT_MESSAGE_DELAY, JsonNodeFactory.instance.numberNode(0));
        if (topic) {
            return shown;
        }
        shown.putIfAbsent(DEAD_LETTER_QUEUE, JsonNodeFactory.instance.nullNode());
        shown.putIfAbsent(DEAD_LETTER_QUEUE_MESSAGES_TTL, JsonNodeFactory.instance.nullNode());
        shown.putIfAbsent(MAX_CLAIM_COUNT, JsonNodeFactory.instance.nullNode());
        shown.putIfAbsent(ENABLE_ENCRYPT_MESSAGES, JsonNodeFactory.instance.booleanNode(false));
        return shown;
    }

    /**
     * {@code metadata} without those of {@link #SHOWN_WHEN_SET} that are {@code null} (unset, so neither stored nor
     * shown): itself when it has none, else a copy.
     */
    public static ObjectNode withoutUnset(ObjectNode metadata) {
        ObjectNode kept = metadata;
        for (String name : SHOWN_WHEN_SET) {
            JsonNode value = metadata.get(name);
            if (value != null && value.isNull()) {
                if (kept == metadata) {
                    kept = metadata.deepCopy();
                }
                kept.remove(name);
            }
        }
        return kept;
    }

    /** Refuses reserved attributes outside their bounds, naming the attribute and the bound. */
    public void validate(ObjectNode metadata) {
        integer(metadata, MAX_MESSAGES_POST_SIZE, 1, config.maxMessagesPostSize(), false);
        integer(metadata, DEFAULT_MESSAGE_TTL, 60, config.maxMessageTtl(), false);
        integer(metadata, DEFAULT_MESSAGE_DELAY, 0, config.maxMessageDelay(), false);
        integer(metadata, DEAD_LETTER_QUEUE_MESSAGES_TTL, 60, config.maxMessageTtl(), true);
        integer(metadata, MAX_CLAIM_COUNT, 1, Integer.MAX_VALUE, true);
        integer(metadata, CLAIM_WAIT_SECONDS, 0, claimWaitSettings.max(), true);
        integer(metadata, DEDUP_WINDOW_SECONDS, 1, idempotencySettings.maxWindow(), true);
        JsonNode contentBased = metadata.get(CONTENT_BASED_DEDUPLICATION);
        if (contentBased != null && !contentBased.isNull() && !contentBased.isBoolean()) {
            throw invalid(CONTENT_BASED_DEDUPLICATION + " must be a boolean, or null.");
        }
        JsonNode scope = metadata.get(DEDUPLICATION_SCOPE);
        if (scope != null
                && !scope.isNull()
                && !(scope.isTextual()
                        && (SCOPE_QUEUE.equals(scope.textValue()) || SCOPE_GROUP.equals(scope.textValue())))) {
            throw invalid(
                    DEDUPLICATION_SCOPE + " must be \"" + SCOPE_QUEUE + "\" or \"" + SCOPE_GROUP + "\", or null.");
        }
        JsonNode deadLetterQueue = metadata.get(DEAD_LETTER_QUEUE);
        if (deadLetterQueue != null && !deadLetterQueue.isNull()) {
            if (!deadLetterQueue.isTextual()) {
                throw invalid(DEAD_LETTER_QUEUE + " must be a queue name or null.");
            }
            QueueName.stored(deadLetterQueue.asText()); // the SQS API names queues of up to 80 characters
        }
        JsonNode ordering = metadata.get(ORDERING);
        if (ordering != null
                && !ordering.isNull()
                && (!ordering.isTextual() || Ordering.named(ordering.textValue()) == null)) {
            throw invalid(ORDERING + " must be \"none\", \"fifo\" or \"fair\", or null.");
        }
        JsonNode flavor = metadata.get(FLAVOR);
        if (flavor != null
                && !flavor.isNull()
                && (!flavor.isTextual() || flavor.asText().length() > 64)) {
            throw invalid(FLAVOR + " must be a flavor's name (at most 64 characters) or null.");
        }
        RetrySchedule.validatePolicy(RETRY_POLICY, metadata.get(RETRY_POLICY));
        JsonNode encrypt = metadata.get(ENABLE_ENCRYPT_MESSAGES);
        if (encrypt != null && !encrypt.isNull()) {
            if (!encrypt.isBoolean()) {
                throw invalid(ENABLE_ENCRYPT_MESSAGES + " must be a boolean.");
            }
            if (encrypt.booleanValue() && !cipher.enabled()) {
                throw invalid(ENABLE_ENCRYPT_MESSAGES + " cannot be true: this server has no encryption key configured "
                        + "(pigeon.encryption.keys).");
            }
        }
    }

    /** The flavor the metadata asks for, or null. */
    public static String flavor(ObjectNode metadata) {
        JsonNode flavor = metadata.get(FLAVOR);
        return flavor != null && flavor.isTextual() ? flavor.asText() : null;
    }

    /** The dead-letter queue the metadata names, or null. */
    public static QueueName deadLetterQueue(ObjectNode metadata) {
        JsonNode queue = metadata.get(DEAD_LETTER_QUEUE);
        return queue != null && queue.isTextual() ? QueueName.stored(queue.asText()) : null;
    }

    private static void integer(ObjectNode metadata, String name, int min, int max, boolean nullable) {
        JsonNode value = metadata.get(name);
        if (value == null || (nullable && value.isNull())) {
            return;
        }
        if (!value.isIntegralNumber() || !value.canConvertToInt() || value.intValue() < min || value.intValue() > max) {
            throw invalid(name + " must be an integer from " + min + " to " + max + (nullable ? ", or null." : "."));
        }
    }

    private static Rejection invalid(String description) {
        return Rejection.invalidRequest(description);
    }
}
