package io.pigeon.sqs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A queue's SQS tags, kept in its metadata under {@value #KEY} (an object of strings), with SQS's bounds: at most
 * {@value #MAX_TAGS} tags, keys of 1 to {@value #MAX_KEY_LENGTH} characters not starting with {@code aws:}, values of 0
 * to {@value #MAX_VALUE_LENGTH} characters, no control characters.
 */
public final class QueueTags {

    public static final String KEY = "_sqs_tags";
    static final int MAX_TAGS = 50;
    static final int MAX_KEY_LENGTH = 128;
    static final int MAX_VALUE_LENGTH = 256;

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
            if (key.isEmpty() || key.length() > MAX_KEY_LENGTH || !printable(key) || key.startsWith("aws:")) {
                throw SqsRefusal.invalidParameter(
                        "Tags", key, "a tag key is 1 to " + MAX_KEY_LENGTH + " characters, not starting with aws:.");
            }
            if (tag.getValue().length() > MAX_VALUE_LENGTH || !printable(tag.getValue())) {
                throw SqsRefusal.invalidParameter(
                        "Tags", tag.getValue(), "a tag value is 0 to " + MAX_VALUE_LENGTH + " characters.");
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

    private static boolean printable(String text) {
        for (int i = 0; i < text.length(); i++) {
            if (Character.isISOControl(text.charAt(i))) {
                return false;
            }
        }
        return true;
    }
}
