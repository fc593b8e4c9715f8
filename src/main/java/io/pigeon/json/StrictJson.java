package io.pigeon.json;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * The one JSON reader of Pigeon, strict: trailing garbage and duplicate keys are errors, and numbers keep
 * their exact value (BigDecimal, scale kept), so a message body comes back equal in value, never rounded to a
 * double nor turned into "Infinity" (1e400). Requests are read with it at the edge (io.pigeon.api.read.JsonBodyReader),
 * documents Pigeon stored itself are read back with it here.
 */
public final class StrictJson {

    private static final ObjectMapper STRICT = new ObjectMapper()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .setNodeFactory(JsonNodeFactory.withExactBigDecimals(true));

    private StrictJson() {}

    /** Reads a document; null or a missing node when there is none. */
    public static JsonNode read(byte[] document) throws IOException {
        return STRICT.readTree(document);
    }

    /** Reads a JSON object that Pigeon itself stored (so it is known to be well-formed). */
    public static ObjectNode readStoredObject(String json) {
        try {
            return (ObjectNode) STRICT.readTree(json);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
