package io.pigeon.api.v2;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.util.MinimalPrettyPrinter;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * A message's {@code checksum} as upstream Zaqar computes it: {@code "MD5:"} and the MD5 of the body, where a
 * string body counts as its text and any other body as its JSON in Python's default layout
 * ({@code ", "} and {@code ": "} separators, non-ASCII kept).
 */
final class BodyChecksum {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** Python's json.dumps separators: a space after every comma and colon. */
    private static final class PythonLayout extends MinimalPrettyPrinter {
        @Override
        public void writeObjectFieldValueSeparator(JsonGenerator g) throws IOException {
            g.writeRaw(": ");
        }

        @Override
        public void writeObjectEntrySeparator(JsonGenerator g) throws IOException {
            g.writeRaw(", ");
        }

        @Override
        public void writeArrayValueSeparator(JsonGenerator g) throws IOException {
            g.writeRaw(", ");
        }
    }

    private BodyChecksum() {
    }

    static String of(String bodyJson) {
        try {
            JsonNode body = JSON.readTree(bodyJson);
            String text = body.isTextual() ? body.textValue() : JSON.writer(new PythonLayout()).writeValueAsString(body);
            MessageDigest md5 = MessageDigest.getInstance("MD5");
            return "MD5:" + HexFormat.of().formatHex(md5.digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("MD5 is part of every Java runtime", e);
        }
    }
}
