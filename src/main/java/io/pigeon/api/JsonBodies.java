package io.pigeon.api;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.io.IOException;

/**
 * Reads request bodies as JSON trees, strictly: trailing garbage and duplicate keys are errors, so a
 * document is either understood whole or refused with 400. Numbers keep their exact value.
 */
public final class JsonBodies {

    // Numbers are kept exactly as sent (BigDecimal, scale kept): a message body comes back equal in value,
    // never rounded to a double nor turned into "Infinity" (1e400).
    private static final ObjectMapper STRICT = new ObjectMapper()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .setNodeFactory(JsonNodeFactory.withExactBigDecimals(true));

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
