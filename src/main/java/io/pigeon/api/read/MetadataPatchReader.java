package io.pigeon.api.read;

import com.fasterxml.jackson.databind.JsonNode;
import io.pigeon.queue.MetadataPatch;
import io.pigeon.rules.Rejection;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads v2's JSON-patch dialect for queue metadata: a non-empty array of {@code add}, {@code replace} and
 * {@code remove} operations on {@code /metadata/<key>}. A patch is read whole before anything is applied.
 */
public final class MetadataPatchReader {

    public static final String PATH_PREFIX = "/metadata/";

    private MetadataPatchReader() {}

    public static MetadataPatch read(JsonNode document) {
        if (!document.isArray() || document.isEmpty()) {
            throw Rejection.invalidBody("A patch is a non-empty JSON array of operations.");
        }
        List<MetadataPatch.Operation> operations = new ArrayList<>(document.size());
        for (JsonNode operation : document) {
            if (!operation.isObject()) {
                throw Rejection.invalidBody("Each patch operation is a JSON object with \"op\" and \"path\".");
            }
            String op = operation.path("op").asText("");
            String key = key(operation.get("path"));
            operations.add(
                    switch (op) {
                        case "add" -> new MetadataPatch.Operation(MetadataPatch.Op.ADD, key, value(operation, op));
                        case "replace" -> new MetadataPatch.Operation(
                                MetadataPatch.Op.REPLACE, key, value(operation, op));
                        case "remove" -> new MetadataPatch.Operation(MetadataPatch.Op.REMOVE, key, null);
                        default -> throw Rejection.invalidBody("Invalid operation \"" + op
                                + "\": the supported operations are add, replace and remove.");
                    });
        }
        return new MetadataPatch(operations);
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
}
