package io.pigeon.message;

import com.fasterxml.jackson.databind.JsonNode;
import io.pigeon.json.StrictJson;
import io.pigeon.queue.ReservedAttributes;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The key under which a queue remembers a message for deduplication, from the queue's two attributes: its
 * {@code dedup_id}, or with {@code _content_based_deduplication} the hash of its content when it has none; remembered
 * per queue, or with {@code _deduplication_scope: "group"} per message group. One rule for both APIs, so that a message
 * sent through SQS and one posted through Zaqar to the same queue deduplicate against each other.
 */
public final class DeduplicationKeys {

    /**
     * Marks a key scoped to a group: a character no dedup_id may hold (they are visible ASCII), so that a group's key
     * never equals a queue-scoped one.
     */
    private static final char GROUP_MARK = '\u001f';

    private DeduplicationKeys() {}

    /** What a queue's metadata asks of deduplication. */
    public record Settings(boolean contentBased, boolean perGroup) {

        public static final Settings NONE = new Settings(false, false);

        /** The settings of a queue with {@code metadata} (null: no such queue, nothing asked). */
        public static Settings of(JsonNode metadata) {
            if (metadata == null) {
                return NONE;
            }
            JsonNode content = metadata.get(ReservedAttributes.CONTENT_BASED_DEDUPLICATION);
            JsonNode scope = metadata.get(ReservedAttributes.DEDUPLICATION_SCOPE);
            return new Settings(
                    content != null && content.isBoolean() && content.booleanValue(),
                    scope != null && ReservedAttributes.SCOPE_GROUP.equals(scope.textValue()));
        }
    }

    /**
     * SHA-256 of {@code content}'s UTF-8 bytes, as 64 lowercase hexadecimal digits: SQS's content-based
     * MessageDeduplicationId (the body only, never the attributes), which a receive shows as the message's.
     */
    public static String contentHash(String content) {
        try {
            return HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-256").digest(content.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * The content of a Zaqar body (compact JSON text) that its hash covers: a JSON string's text (what SQS sends and
     * receives as the body), any other JSON as its compact text.
     */
    public static String contentOfBody(String compactJson) {
        if (compactJson.isEmpty() || compactJson.charAt(0) != '"') {
            return compactJson;
        }
        try {
            return StrictJson.read(compactJson.getBytes(StandardCharsets.UTF_8)).textValue();
        } catch (IOException e) {
            return compactJson;
        }
    }

    /** The dedup_id a message goes by: its own, else with content-based deduplication its content's hash, else null. */
    public static String dedupId(Settings settings, String dedupId, String content) {
        if (dedupId != null) {
            return dedupId;
        }
        return settings.contentBased() && content != null ? contentHash(content) : null;
    }

    /**
     * The key the queue remembers {@code dedupId} (null: none) under: itself, or scoped to {@code group} when the queue
     * remembers per group and the message has one (a message without a group is remembered per queue).
     */
    public static String key(Settings settings, String dedupId, String group) {
        if (dedupId == null || !settings.perGroup() || group == null) {
            return dedupId;
        }
        return GROUP_MARK + Integer.toString(group.length()) + ':' + group + dedupId;
    }
}
