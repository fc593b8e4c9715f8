package io.pigeon.api;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;

/**
 * Reads request bodies as JSON trees, strictly: trailing garbage and duplicate keys are errors, so a
 * document is either understood whole or refused with 400.
 */
public final class JsonBodies {

    private static final ObjectMapper STRICT = new ObjectMapper()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

    private JsonBodies() {
    }

    /** Reads a JSON object that Pigeon itself stored (so it is known to be well-formed). */
    public static com.fasterxml.jackson.databind.node.ObjectNode readStoredObject(String json) {
        try {
            return (com.fasterxml.jackson.databind.node.ObjectNode) STRICT.readTree(json);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Parses a required JSON body (its Content-Type is checked by the resource, before). */
    public static JsonNode parse(byte[] body) {
        if (body == null || body.length == 0) {
            throw ApiException.invalidBody("Request body can not be empty");
        }
        try {
            JsonNode node = STRICT.readTree(body);
            if (node == null || node.isMissingNode()) {
                throw ApiException.invalidBody("Request body can not be empty");
            }
            return node;
        } catch (IOException e) {
            throw ApiException.invalidBody("Request body could not be parsed.");
        }
    }
}
