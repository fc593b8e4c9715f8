package io.pigeon.sqs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * A queue's SQS tags, kept in its metadata under {@value #KEY} (an object of strings), with the bounds SQS's developer
 * guide gives ("Quotas related to queues"): at most {@value #MAX_TAGS} tags, keys of 1 to {@value #MAX_KEY_LENGTH}
 * Unicode characters and values of 0 to {@value #MAX_VALUE_LENGTH}, both of Unicode letters, digits and white space and
 * {@code _ . : / = + - @} only, neither starting with the reserved prefix {@code aws:} (in any case, as AWS's tagging
 * rules reserve it).
 */
public final class QueueTags {

    public static final String KEY = "_sqs_tags";
    static final int MAX_TAGS = 50;
    static final int MAX_KEY_LENGTH = 128;
    static final int MAX_VALUE_LENGTH = 256;

    /** AWS's tag pattern: letters, separators (spaces), digits and the eight marks. */
    private static final Pattern ALLOWED = Pattern.compile("[\\p{L}\\p{Z}\\p{N}_.:/=+\\-@]*");

    private static final String RESERVED = "aws:";

    private QueueTags() {}

    /** The tags a queue's metadata holds (an entry that is not a string, set through Zaqar, is left out). */
    public static Map<String, String> of(ObjectNode metadata) {
        Map<String, String> tags = new LinkedHashMap<>();
        JsonNode stored = metadata.get(KEY);
        if (stored != null && stored.isObject()) {
            for (Iterator<Map.Entry<String, JsonNode>> it = stored.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> tag = it.next();
                if (tag.getValue().isTextual()) {
                    tags.put(tag.getKey(), tag.getValue().textValue());
                }
            }
        }
        return tags;
    }

    /** Checks {@code added} against the bounds of one tag each; the count is checked by {@link #tagged}. */
    public static void check(Map<String, String> added) {
        for (Map.Entry<String, String> tag : added.entrySet()) {
            String key = tag.getKey();
            int keyLength = key.codePointCount(0, key.length());
            if (keyLength < 1 || keyLength > MAX_KEY_LENGTH || !allowed(key)) {
                throw SqsRefusal.invalidParameter(
                        "Tags",
                        key,
                        "a tag key is 1 to " + MAX_KEY_LENGTH + " Unicode letters, digits, spaces and _ . : / = + - @,"
                                + " not starting with aws:.");
            }
            String value = tag.getValue();
            if (value.codePointCount(0, value.length()) > MAX_VALUE_LENGTH || !allowed(value)) {
                throw SqsRefusal.invalidParameter(
                        "Tags",
                        value,
                        "a tag value is 0 to " + MAX_VALUE_LENGTH + " Unicode letters, digits, spaces and"
                                + " _ . : / = + - @, not starting with aws:.");
            }
        }
    }

    /**
     * {@code metadata} of the queue named {@code queue} with {@code added} tags set (in place); refused past
     * {@value #MAX_TAGS} tags, in AWS's words, which name the queue.
     */
    public static ObjectNode tagged(ObjectNode metadata, String queue, Map<String, String> added) {
        Map<String, String> tags = of(metadata);
        tags.putAll(added);
        if (tags.size() > MAX_TAGS) {
            throw SqsRefusal.invalidValue("Too many tags added for queue " + Printable.of(queue) + ".");
        }
        return withTags(metadata, tags);
    }

    /** {@code metadata} without the tags named (in place). */
    public static ObjectNode untagged(ObjectNode metadata, Collection<String> keys) {
        Map<String, String> tags = of(metadata);
        keys.forEach(tags::remove);
        return withTags(metadata, tags);
    }

    private static ObjectNode withTags(ObjectNode metadata, Map<String, String> tags) {
        if (tags.isEmpty()) {
            metadata.remove(KEY);
            return metadata;
        }
        ObjectNode stored = JsonNodeFactory.instance.objectNode();
        tags.forEach(stored::put);
        metadata.set(KEY, stored);
        return metadata;
    }

    private static boolean allowed(String text) {
        return ALLOWED.matcher(text).matches() && !text.regionMatches(true, 0, RESERVED, 0, RESERVED.length());
    }
}
