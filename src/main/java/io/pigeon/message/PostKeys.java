package io.pigeon.message;

import io.pigeon.rules.Rejection;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;

/**
 * What makes a post idempotent: its {@code Idempotency-Key} (null: none) and the {@code dedup_id} of each of its
 * messages (null: none; the list is null when no message has one). A queue remembers both for its window
 * ({@code _dedup_window_seconds}): a post repeating a remembered key stores nothing and answers the first post's ids;
 * a message repeating a remembered dedup_id is not stored again and its place in the answer carries the first's id.
 */
public record PostKeys(String key, List<String> dedupIds) {

    /** The header that carries a post's key (the IETF httpapi Idempotency-Key draft's). */
    public static final String HEADER = "Idempotency-Key";

    /** The longest key, in characters (printable ASCII, so bytes too). */
    public static final int MAX_KEY_LENGTH = 255;

    /** The longest dedup_id, in characters (printable ASCII), as SQS's MessageDeduplicationId. */
    public static final int MAX_DEDUP_ID_LENGTH = 128;

    /** A post without either: it takes the ordinary path, as it always has. */
    public static final PostKeys NONE = new PostKeys(null, null);

    /** Whether the post carries a key or a message carries a dedup_id. */
    public boolean any() {
        return key != null || dedupIds != null;
    }

    /**
     * These keys as the queue remembers {@code messages}' ({@code settings}): each message's dedup_id, or its content's
     * hash on a queue that deduplicates by content, scoped to its group on a queue that remembers per group (see
     * {@link DeduplicationKeys}). Itself when the queue asks for neither.
     */
    PostKeys deduplicatedAs(DeduplicationKeys.Settings settings, List<NewMessage> messages) {
        if (!settings.contentBased() && !settings.perGroup()) {
            return this;
        }
        List<String> keys = new ArrayList<>(messages.size());
        boolean any = false;
        for (int i = 0; i < messages.size(); i++) {
            NewMessage message = messages.get(i);
            String dedupId = DeduplicationKeys.dedupId(
                    settings,
                    dedupId(i),
                    settings.contentBased() && dedupId(i) == null
                            ? DeduplicationKeys.contentOfBody(message.body())
                            : null);
            String key = DeduplicationKeys.key(settings, dedupId, message.group());
            any |= key != null;
            keys.add(key);
        }
        return new PostKeys(key, any ? keys : null);
    }

    /** The dedup_id of message {@code i}, or null. */
    String dedupId(int i) {
        return dedupIds == null ? null : dedupIds.get(i);
    }

    /**
     * An {@code Idempotency-Key} header's value as the key: a bare token or a structured-field string (RFC 8941, as the
     * IETF draft sends it, {@code "..."}), of 1 to {@value #MAX_KEY_LENGTH} visible ASCII characters (no space, and no
     * quote or backslash inside quotes); null for no header.
     */
    public static String key(List<String> headers) {
        if (headers == null || headers.isEmpty()) {
            return null;
        }
        if (headers.size() > 1) {
            throw Rejection.invalidRequest("Idempotency-Key may be given once per post.");
        }
        String value = headers.get(0).strip();
        boolean quoted = value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"");
        String key = quoted ? value.substring(1, value.length() - 1) : value;
        if (key.isEmpty()
                || key.length() > MAX_KEY_LENGTH
                || !visibleAscii(key)
                || (quoted && (key.indexOf('"') >= 0 || key.indexOf('\\') >= 0))) {
            throw Rejection.invalidRequest("Idempotency-Key must be 1 to " + MAX_KEY_LENGTH
                    + " visible ASCII characters (no spaces), bare or as a quoted string.");
        }
        return key;
    }

    /** A message's {@code dedup_id}, checked: 1 to {@value #MAX_DEDUP_ID_LENGTH} visible ASCII characters. */
    public static String dedupId(String value) {
        if (value == null || value.isEmpty() || value.length() > MAX_DEDUP_ID_LENGTH || !visibleAscii(value)) {
            throw Rejection.invalidBody(dedupIdExpectation());
        }
        return value;
    }

    /** What a dedup_id must be, as a refusal says it. */
    public static String dedupIdExpectation() {
        return "\"dedup_id\" must be a string of 1 to " + MAX_DEDUP_ID_LENGTH
                + " visible ASCII characters (no spaces).";
    }

    private static boolean visibleAscii(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < 0x21 || c > 0x7e) {
                return false;
            }
        }
        return true;
    }

    /**
     * The digest of a post's messages as the client gave them (TTL, delay, dedup_id, body), which the key remembers:
     * the same key sent with other messages is refused rather than answered with ids of messages it did not ask for.
     */
    byte[] digest(List<NewMessage> messages) {
        MessageDigest sha;
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        for (int i = 0; i < messages.size(); i++) {
            NewMessage message = messages.get(i);
            // Each field length-prefixed, so that no two different posts read as the same bytes.
            field(sha, message.ttl() == null ? null : message.ttl().toString());
            field(sha, message.delay() == null ? null : message.delay().toString());
            field(sha, dedupId(i));
            field(sha, message.body());
        }
        return sha.digest();
    }

    /** A field as its length (-1: absent) and its bytes. */
    private static void field(MessageDigest sha, String text) {
        byte[] bytes = text == null ? new byte[0] : text.getBytes(StandardCharsets.UTF_8);
        sha.update(
                ByteBuffer.allocate(4).putInt(text == null ? -1 : bytes.length).array());
        sha.update(bytes);
    }
}
