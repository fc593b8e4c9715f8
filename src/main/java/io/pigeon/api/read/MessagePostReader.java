package io.pigeon.api.read;

import com.fasterxml.jackson.databind.JsonNode;
import io.pigeon.api.ApiVersion;
import io.pigeon.message.MessageBounds;
import io.pigeon.message.MessageGroups;
import io.pigeon.message.NewMessage;
import io.pigeon.message.PostKeys;
import io.pigeon.rules.Rejection;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Message-post documents, read at the edge into {@link NewMessage}s: the document's size is bounded before it
 * is parsed, its shape and field types are checked here, and each message is held to the {@link MessageBounds} as
 * it is read, so that the first fault of a document is the one reported.
 */
public final class MessagePostReader {

    private MessagePostReader() {}

    /**
     * A post in {@code version}'s shape: v1's is a bare array of messages, each with a required {@code ttl}; later
     * ones are {@code {"messages": [...]}}, where a message may omit {@code ttl} (the queue's default then applies)
     * and, where the version has delayed messages (v2, not v1.1), give a {@code delay}. Any message may name its
     * {@code group} (Pigeon's; Zaqar drops the field, so a client that sends it still works against Zaqar).
     */
    public static List<NewMessage> read(byte[] document, ApiVersion version, MessageBounds bounds) {
        return readPost(document, version, bounds).messages();
    }

    /**
     * A post document's messages and the {@code dedup_id} each gives (Pigeon's; Zaqar drops the field): null when no
     * message gives one, else one entry per message, null for a message without.
     */
    public record Post(List<NewMessage> messages, List<String> dedupIds) {}

    /** {@link #read}, with each message's {@code dedup_id} (1 to 128 visible ASCII characters, or null / absent). */
    public static Post readPost(byte[] document, ApiVersion version, MessageBounds bounds) {
        JsonNode body = read(document, bounds);
        List<String> dedupIds = new ArrayList<>();
        List<NewMessage> messages = newMessages(
                version.wrapsPosts() ? messagesOf(body) : body,
                !version.requiresTtl(),
                version.has(ApiVersion.Feature.DELAYED_MESSAGES),
                bounds,
                dedupIds);
        return new Post(messages, dedupIds.stream().allMatch(Objects::isNull) ? null : dedupIds);
    }

    private static JsonNode messagesOf(JsonNode body) {
        JsonNode messages = body.isObject() ? body.get("messages") : null;
        if (messages == null || !messages.isArray()) {
            if (!body.isObject() && !body.isArray()) {
                throw Rejection.invalidBody("Request body could not be parsed.");
            }
            throw Rejection.invalidRequest("No messages were found in the request body.");
        }
        return messages;
    }

    private static JsonNode read(byte[] document, MessageBounds bounds) {
        if (document != null && document.length > bounds.maxPostSize()) {
            throw Rejection.invalidRequest("Message collection size is too large. Max size " + bounds.maxPostSize());
        }
        return JsonBodyReader.parse(document);
    }

    private static List<NewMessage> newMessages(
            JsonNode messages, boolean ttlOptional, boolean delayAllowed, MessageBounds bounds, List<String> dedupIds) {
        if (messages == null || !messages.isArray()) {
            throw Rejection.invalidBody("Request body could not be parsed.");
        }
        if (messages.isEmpty()) {
            throw Rejection.invalidRequest("No messages to enqueu.");
        }
        List<NewMessage> parsed = new ArrayList<>(messages.size());
        for (JsonNode message : messages) {
            if (!message.isObject()) {
                throw Rejection.invalidBody("Each message must be a JSON object with \"ttl\" and \"body\" fields.");
            }
            JsonNode ttlNode = message.get("ttl");
            if (ttlNode == null && !ttlOptional) {
                throw Rejection.invalidBody("Missing \"ttl\" field.");
            }
            Integer ttl = ttlNode == null ? null : JsonBodyReader.integerField("ttl", ttlNode);
            JsonNode body = message.get("body");
            if (body == null) {
                throw Rejection.invalidBody("Missing \"body\" field.");
            }
            bounds.checkTtl(ttl);
            JsonNode delayNode = delayAllowed ? message.get("delay") : null;
            Integer delay = delayNode == null ? null : JsonBodyReader.integerField("delay", delayNode);
            bounds.checkDelay(delay);
            JsonNode dedupId = message.get("dedup_id");
            if (dedupId != null && !dedupId.isNull() && !dedupId.isTextual()) {
                throw Rejection.invalidBody(PostKeys.dedupIdExpectation());
            }
            dedupIds.add(dedupId == null || dedupId.isNull() ? null : PostKeys.dedupId(dedupId.textValue()));
            JsonNode group = message.get("group");
            if (group != null && !group.isNull() && !group.isTextual()) {
                throw Rejection.invalidBody(MessageGroups.expectation());
            }
            parsed.add(new NewMessage(
                    ttl,
                    delay,
                    body.toString(),
                    group == null || group.isNull() ? null : MessageGroups.checked(group.textValue())));
        }
        return parsed;
    }
}
