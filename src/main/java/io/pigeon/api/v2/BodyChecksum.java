package io.pigeon.api.v2;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.Map;

/**
 * A message's {@code checksum} as Zaqar computes it: {@code "MD5:"} and
 * the MD5 of the body serialised by Python's {@code json.dumps} with its defaults: {@code ", "} and {@code ": "}
 * separators, keys in the order posted, every character outside printable ASCII escaped as {@code \\uXXXX}
 * (lowercase), a string body with its quotes, and numbers with a fraction or exponent read as a double and
 * written as Python's {@code repr} writes it. A {@code null} body has no checksum.
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
        write(body, text);
        try {
            MessageDigest md5 = MessageDigest.getInstance("MD5");
            return "MD5:" + HexFormat.of().formatHex(md5.digest(text.toString().getBytes(StandardCharsets.US_ASCII)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("MD5 is part of every Java runtime", e);
        }
    }

    private static void write(JsonNode node, StringBuilder out) {
        switch (node.getNodeType()) {
            case OBJECT -> {
                out.append('{');
                Iterator<Map.Entry<String, JsonNode>> fields = node.fields();
                while (fields.hasNext()) {
                    Map.Entry<String, JsonNode> field = fields.next();
                    string(field.getKey(), out);
                    out.append(": ");
                    write(field.getValue(), out);
                    if (fields.hasNext()) {
                        out.append(", ");
                    }
                }
                out.append('}');
            }
            case ARRAY -> {
                out.append('[');
                for (int i = 0; i < node.size(); i++) {
                    if (i > 0) {
                        out.append(", ");
                    }
                    write(node.get(i), out);
                }
                out.append(']');
            }
            case STRING -> string(node.textValue(), out);
            case NUMBER -> out.append(
                    node.isIntegralNumber() ? node.bigIntegerValue().toString() : pythonFloat(node.doubleValue()));
            case BOOLEAN -> out.append(node.booleanValue());
            default -> out.append("null");
        }
    }

    /** A string as json.dumps writes it with ensure_ascii: only printable ASCII is written as is. */
    private static void string(String value, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                case '\b' -> out.append("\\b");
                case '\f' -> out.append("\\f");
                default -> {
                    if (c < 0x20 || c > 0x7e) {
                        out.append("\\u").append(String.format("%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }

    /**
     * A double as Python's repr writes it: the shortest digits, positional when the decimal point falls
     * within 16 digits (with ".0" when integral), else scientific with a signed exponent of two or more digits.
     */
    static String pythonFloat(double value) {
        if (Double.isNaN(value)) {
            return "NaN";
        }
        if (Double.isInfinite(value)) {
            return value > 0 ? "Infinity" : "-Infinity";
        }
        if (value == 0) {
            return 1 / value < 0 ? "-0.0" : "0.0";
        }
        BigDecimal shortest = new BigDecimal(Double.toString(Math.abs(value))).stripTrailingZeros();
        String digits = shortest.unscaledValue().toString();
        int point = digits.length() - shortest.scale();
        String sign = value < 0 ? "-" : "";
        if (point > -4 && point <= 16) {
            if (point <= 0) {
                return sign + "0." + "0".repeat(-point) + digits;
            }
            if (point >= digits.length()) {
                return sign + digits + "0".repeat(point - digits.length()) + ".0";
            }
            return sign + digits.substring(0, point) + "." + digits.substring(point);
        }
        int exponent = point - 1;
        String mantissa = digits.length() == 1 ? digits : digits.charAt(0) + "." + digits.substring(1);
        return sign + mantissa + "e" + (exponent < 0 ? "-" : "+") + String.format("%02d", Math.abs(exponent));
    }
}
