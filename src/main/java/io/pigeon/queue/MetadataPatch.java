package io.pigeon.queue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pigeon.rules.Rejection;

/**
 * Queue-metadata patches in the v2 JSON-patch dialect: an array of {@code add}, {@code replace} and
 * {@code remove} operations on {@code /metadata/<key>}. The whole patch applies or none of it.
 */
public final class MetadataPatch {

    static final String PATH_PREFIX = "/metadata/";

    private MetadataPatch() {
    }

    /**
     * A copy of {@code metadata} with every operation applied. Keys in {@code alwaysPresent} (the reserved
     * attributes, which always have a value) may be replaced or removed when unset: removing one returns it
     * to its default, as Zaqar does; python-zaqarclient relies on it.
     */
    public static ObjectNode apply(ObjectNode metadata, JsonNode operations, java.util.Set<String> alwaysPresent) {
        if (!operations.isArray() || operations.isEmpty()) {
            throw Rejection.invalidBody("A patch is a non-empty JSON array of operations.");
        }
        ObjectNode patched = metadata.deepCopy();
        for (JsonNode operation : operations) {
            if (!operation.isObject()) {
                throw Rejection.invalidBody("Each patch operation is a JSON object with \"op\" and \"path\".");
            }
            String op = operation.path("op").asText("");
            String key = key(operation.get("path"));
            switch (op) {
                case "add" -> patched.set(key, value(operation, op));
                case "replace" -> {
                    if (!patched.has(key) && !alwaysPresent.contains(key)) {
                        throw conflict("Can't replace non-existent object " + key + ".");
                    }
                    patched.set(key, value(operation, op));
                }
                case "remove" -> {
                    if (!patched.has(key) && !alwaysPresent.contains(key)) {
                        throw conflict("Can't remove non-existent object " + key + ".");
                    }
                    patched.remove(key);
                }
                default -> throw Rejection.invalidBody(
                        "Invalid operation \"" + op + "\": the supported operations are add, replace and remove.");
            }
        }
        return patched;
    }

    private static String key(JsonNode path) {
        String text = path == null || !path.isTextual() ? "" : path.asText();
        String key = text.startsWith(PATH_PREFIX) ? text.substring(PATH_PREFIX.length()) : "";
        if (key.isEmpty() || key.contains("/")) {
            throw Rejection.invalidBody("Invalid path \"" + text + "\": a path is \"/metadata/<key>\".");
        }
        return key;
    }

    private static JsonNode value(JsonNode operation, String op) {
        JsonNode value = operation.get("value");
        if (value == null) {
            throw Rejection.invalidBody("The \"" + op + "\" operation needs a \"value\".");
        }
        return value;
    }

    private static Rejection conflict(String description) {
        return new Rejection(Rejection.Reason.CONFLICT, description);
    }
}
