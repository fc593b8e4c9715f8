package io.pigeon.api.ws;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * One request frame as Zaqar reads it: the {@code action} named, the {@code headers} (Client-ID, X-Project-ID,
 * ...) and the {@code body} holding what HTTP puts in the path, the query and the body. Each is kept as sent (null
 * when absent), so that the answer echoes it; {@code binary} says which encoding the answer takes.
 */
record SocketRequest(JsonNode action, JsonNode body, JsonNode headers, boolean binary) {

    /** A frame that could not be read: its answer echoes no action, body or headers. */
    static SocketRequest unreadable(boolean binary) {
        return new SocketRequest(null, null, null, binary);
    }

    static SocketRequest of(ObjectNode frame, boolean binary) {
        return new SocketRequest(frame.get("action"), frame.get("body"), frame.get("headers"), binary);
    }

    /** The action's name; null when it is not a string. */
    String actionName() {
        return action != null && action.isTextual() ? action.textValue() : null;
    }

    /** The body's fields; empty when it has none (the schema check refuses a body that is not an object). */
    ObjectNode fields() {
        return body instanceof ObjectNode object ? object : FrameCodec.object();
    }

    /** A string field of the body; null when absent. */
    String text(String field) {
        JsonNode value = fields().get(field);
        return value == null || value.isNull() ? null : value.asText();
    }

    /** A header's string value; null when absent or not a string. */
    String header(String name) {
        JsonNode value = headers instanceof ObjectNode object ? object.get(name) : null;
        return value != null && value.isTextual() ? value.textValue() : null;
    }

    /** Whether the headers hold {@code name}, whatever its value. */
    boolean hasHeader(String name) {
        return headers instanceof ObjectNode object && object.has(name);
    }

    /** The action as Zaqar prints it in "... is not a valid action": Python's spelling of the value. */
    String actionAsPython() {
        if (action == null || action.isNull()) {
            return "None";
        }
        if (action.isBoolean()) {
            return action.booleanValue() ? "True" : "False";
        }
        return action.isTextual() ? action.textValue() : action.toString();
    }
}
