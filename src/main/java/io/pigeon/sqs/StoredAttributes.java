package io.pigeon.sqs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pigeon.json.StrictJson;
import java.util.Base64;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What an SQS send stores in a message's {@code sqs_attributes} column (migration V29), beside the body: its message
 * attributes and its system attributes, as one compact JSON text ({@code {"m": {name: {"t": type, "s": text} or {"t":
 * type, "b": base64}}, "s": {...}, "d": deduplication id}}, each part left out when empty). The deduplication id is a
 * FIFO message's MessageDeduplicationId (given, or its body's hash), which a receive shows. Null when there is none
 * of them, so a message sent without attributes stores what a Zaqar post stores.
 */
record StoredAttributes(MessageAttributes message, MessageAttributes system, String deduplicationId) {

    static final StoredAttributes NONE = new StoredAttributes(MessageAttributes.NONE, MessageAttributes.NONE, null);

    StoredAttributes(MessageAttributes message, MessageAttributes system) {
        this(message, system, null);
    }

    /** The column's text, or null when there is nothing to store. */
    String text() {
        if (message.isEmpty() && system.isEmpty() && deduplicationId == null) {
            return null;
        }
        ObjectNode document = JsonNodeFactory.instance.objectNode();
        if (!message.isEmpty()) {
            document.set("m", written(message));
        }
        if (!system.isEmpty()) {
            document.set("s", written(system));
        }
        if (deduplicationId != null) {
            document.put("d", deduplicationId);
        }
        return document.toString();
    }

    private static ObjectNode written(MessageAttributes attributes) {
        ObjectNode byName = JsonNodeFactory.instance.objectNode();
        attributes.byName().forEach((name, value) -> {
            ObjectNode one = byName.putObject(name);
            one.put("t", value.dataType());
            if (value.isBinary()) {
                one.put("b", Base64.getEncoder().encodeToString(value.binaryValue()));
            } else {
                one.put("s", value.stringValue());
            }
        });
        return byName;
    }

    /** The attributes a stored text holds (none for null: a message posted through Zaqar). */
    static StoredAttributes read(String text) {
        if (text == null) {
            return NONE;
        }
        ObjectNode document = StrictJson.readStoredObject(text);
        JsonNode deduplicationId = document.get("d");
        return new StoredAttributes(
                readPart(document.get("m")),
                readPart(document.get("s")),
                deduplicationId == null ? null : deduplicationId.textValue());
    }

    private static MessageAttributes readPart(JsonNode part) {
        if (part == null) {
            return MessageAttributes.NONE;
        }
        Map<String, AttributeValue> byName = new LinkedHashMap<>();
        Iterator<Map.Entry<String, JsonNode>> fields = part.fields();
        while (fields.hasNext()) {
            Map.Entry<String, JsonNode> field = fields.next();
            JsonNode value = field.getValue();
            String type = value.get("t").textValue();
            byName.put(
                    field.getKey(),
                    value.has("b")
                            ? AttributeValue.binary(
                                    type,
                                    Base64.getDecoder().decode(value.get("b").textValue()))
                            : AttributeValue.string(type, value.get("s").textValue()));
        }
        return MessageAttributes.stored(byName);
    }
}
