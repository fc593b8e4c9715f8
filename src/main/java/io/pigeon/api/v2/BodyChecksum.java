package io.pigeon.api.v2;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pigeon.json.PythonJson;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * A message's {@code checksum} as Zaqar computes it: {@code "MD5:"} and the MD5 of the body as Python's
 * {@code json.dumps} writes it ({@link PythonJson}; a string body with its quotes). A {@code null} body has no
 * checksum.
 */
final class BodyChecksum {

    /** Reads numbers as Python does: a fraction or exponent makes a double. */
    private static final ObjectMapper JSON = new ObjectMapper();

    private BodyChecksum() {}

    /** The checksum of a stored body (JSON text); null for a {@code null} body. */
    static String of(String bodyJson) {
        JsonNode body;
        try {
            body = JSON.readTree(bodyJson);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (body == null || body.isNull()) {
            return null;
        }
        StringBuilder text = new StringBuilder(bodyJson.length() + 16);
        PythonJson.write(body, text);
        try {
            MessageDigest md5 = MessageDigest.getInstance("MD5");
            return "MD5:" + HexFormat.of().formatHex(md5.digest(text.toString().getBytes(StandardCharsets.US_ASCII)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("MD5 is part of every Java runtime", e);
        }
    }
}
