package io.pigeon.json;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.util.Map;

/**
 * A document as Python's {@code json.dumps} writes it with its defaults, which is how Zaqar writes what a client
 * compares byte for byte (a message's checksum, a notification mail's text): {@code ", "} and {@code ": "} separators,
 * keys in the order given, every character outside printable ASCII (0x7f included) escaped as a lowercase
 * {@code \\uXXXX}, integers as they are, and numbers with a fraction or exponent as Python's {@code repr} writes a
 * double.
 */
public final class PythonJson {

    private PythonJson() {}

    /** {@code value} as {@code json.dumps(value)} writes it. */
    public static String dumps(JsonNode value) {
        StringBuilder text = new StringBuilder();
        write(value, text);
        return text.toString();
    }

    /** Appends {@code json.dumps(value)} to {@code text}. */
    public static void write(JsonNode value, StringBuilder text) {
        switch (value.getNodeType()) {
            case OBJECT -> {
                text.append('{');
                String separator = "";
                for (Map.Entry<String, JsonNode> field : value.properties()) {
                    text.append(separator);
                    writeString(field.getKey(), text);
                    text.append(": ");
                    write(field.getValue(), text);
                    separator = ", ";
                }
                text.append('}');
            }
            case ARRAY -> {
                text.append('[');
                for (int i = 0; i < value.size(); i++) {
                    if (i > 0) {
                        text.append(", ");
                    }
                    write(value.get(i), text);
                }
                text.append(']');
            }
            case STRING -> writeString(value.textValue(), text);
            case NUMBER -> text.append(
                    value.isIntegralNumber() ? value.bigIntegerValue().toString() : pythonFloat(value.doubleValue()));
            case BOOLEAN -> text.append(value.booleanValue());
            default -> text.append("null");
        }
    }

    /** A string as {@code json.dumps} writes it with {@code ensure_ascii}: only printable ASCII stays as it is. */
    public static void writeString(String value, StringBuilder text) {
        text.append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '"' -> text.append("\\\"");
                case '\\' -> text.append("\\\\");
                case '\n' -> text.append("\\n");
                case '\r' -> text.append("\\r");
                case '\t' -> text.append("\\t");
                case '\b' -> text.append("\\b");
                case '\f' -> text.append("\\f");
                default -> {
                    if (c < 0x20 || c > 0x7e) {
                        text.append("\\u").append(String.format("%04x", (int) c));
                    } else {
                        text.append(c);
                    }
                }
            }
        }
        text.append('"');
    }

    /**
     * A double as Python's repr writes it: the shortest digits, positional when the decimal point falls within 16
     * digits (with ".0" when integral), else scientific with a signed exponent of two or more digits.
     */
    public static String pythonFloat(double value) {
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
