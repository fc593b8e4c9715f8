package io.pigeon.dispatch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.math.BigDecimal;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;

/**
 * A mail as Zaqar 15's mail task ({@code zaqar/notification/tasks/mailto.py}) makes it from a {@code mailto:}
 * subscriber and what the dispatcher stored for it: to the subscriber's address (the URI's path); for a message's
 * notification, the subject of the URI's {@code ?subject=} or else the subscription's {@code subject} option, the
 * sender its {@code from} option, and as text the notification document as Python's {@code json.dumps} writes it
 * ({@code ttl}, {@code body}, {@code Message_Type}, {@code queue_name}, ASCII only, {@code ", "} and {@code ": "}
 * between items); for a confirmation request, its fixed subject ({@code topic}) and text as stored.
 *
 * <p>Where Zaqar leaves the sender empty (no {@code from} option) the configured sender ({@code quarkus.mailer.from})
 * is used instead ({@code from} is null here); a {@code from} or subject that would break the mail's header (a line
 * break, an address without {@code @}) is not used either.
 *
 * @param to the recipient's address
 * @param from the sender, or null for the configured one
 * @param subject the subject, possibly empty
 * @param text the plain-text body
 */
record ZaqarMail(String to, String from, String subject, String text) {

    /** The prefix of a mail target (a {@code mailto:} subscriber). */
    static final String SCHEME = "mailto:";

    /** The stored headers' key of a confirmation's subject (Zaqar's template {@code topic}), which no URI overrides. */
    static final String TOPIC = "topic";

    private static final ObjectMapper JSON = new ObjectMapper();

    /** Whether a group's target is a mail address rather than a URL to call. */
    static boolean isMail(String target) {
        return target.regionMatches(true, 0, SCHEME, 0, SCHEME.length());
    }

    /** The domain of the recipient: what the per-target rate counts mails by. */
    String domain() {
        return to.substring(to.lastIndexOf('@') + 1).toLowerCase(Locale.ROOT);
    }

    /**
     * The mail for a group's {@code target} ({@code mailto:} URI), {@code headersJson} (the subscription's
     * {@code subject} and {@code from}, or a confirmation's {@code topic}) and {@code body} (a notification document or
     * a confirmation's text); null when the target names no address.
     */
    static ZaqarMail of(String target, String headersJson, String body) {
        String uri = target.substring(SCHEME.length());
        int query = uri.indexOf('?');
        String to = decode(query < 0 ? uri : uri.substring(0, query), false);
        if (to.indexOf('@') <= 0 || to.endsWith("@") || hasLineBreak(to)) {
            return null;
        }
        JsonNode headers = readObject(headersJson);
        JsonNode topic = headers.get(TOPIC);
        if (topic != null && topic.isTextual()) {
            return new ZaqarMail(to, null, oneLine(topic.asText()), body);
        }
        String subject = query < 0 ? null : queryParameter(uri.substring(query + 1), "subject");
        if (subject == null) {
            subject = optionText(headers.get("subject"));
        }
        String from = optionText(headers.get("from"));
        if (from.indexOf('@') < 0 || hasLineBreak(from)) {
            from = null;
        }
        return new ZaqarMail(to, from, oneLine(subject), notificationText(body));
    }

    /**
     * The text of a notification: the document in Zaqar's mail order, as Python writes it; a body that is not a
     * notification document is sent as it is.
     */
    static String notificationText(String body) {
        JsonNode document = readObject(body);
        if (!document.has("Message_Type")) {
            return body;
        }
        StringBuilder text = new StringBuilder("{");
        String separator = "";
        for (String key : new String[] {"ttl", "body", "Message_Type", "queue_name"}) {
            JsonNode value = document.get(key);
            if (value != null) {
                text.append(separator);
                writeString(key, text);
                text.append(": ");
                write(value, text);
                separator = ", ";
            }
        }
        for (Map.Entry<String, JsonNode> field : document.properties()) {
            if (!field.getKey().equals("ttl")
                    && !field.getKey().equals("body")
                    && !field.getKey().equals("Message_Type")
                    && !field.getKey().equals("queue_name")) {
                text.append(separator);
                writeString(field.getKey(), text);
                text.append(": ");
                write(field.getValue(), text);
                separator = ", ";
            }
        }
        return text.append('}').toString();
    }

    /** {@code value} as Python's {@code json.dumps} writes it (default options: ASCII only, spaced separators). */
    static String pythonJson(JsonNode value) {
        StringBuilder text = new StringBuilder();
        write(value, text);
        return text.toString();
    }

    private static void write(JsonNode value, StringBuilder text) {
        if (value.isObject()) {
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
        } else if (value.isArray()) {
            text.append('[');
            for (int i = 0; i < value.size(); i++) {
                if (i > 0) {
                    text.append(", ");
                }
                write(value.get(i), text);
            }
            text.append(']');
        } else if (value.isTextual()) {
            writeString(value.asText(), text);
        } else if (value.isFloatingPointNumber()) {
            text.append(pythonFloat(value.doubleValue()));
        } else if (value.isNumber()) {
            text.append(value.bigIntegerValue());
        } else if (value.isBoolean()) {
            text.append(value.booleanValue() ? "true" : "false");
        } else {
            text.append("null");
        }
    }

    private static void writeString(String value, StringBuilder text) {
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
                        // Python escapes every char outside ASCII (and 0x7f stays as it is, as in Python).
                        if (c == 0x7f) {
                            text.append(c);
                        } else {
                            text.append(String.format("\\u%04x", (int) c));
                        }
                    } else {
                        text.append(c);
                    }
                }
            }
        }
        text.append('"');
    }

    /** A float as Python's {@code repr}: positional from 1e-4 up to 1e16, else d.ddde+XX. */
    static String pythonFloat(double value) {
        if (Double.isNaN(value)) {
            return "NaN";
        }
        if (Double.isInfinite(value)) {
            return value > 0 ? "Infinity" : "-Infinity";
        }
        if (value == 0) {
            return (1 / value < 0) ? "-0.0" : "0.0";
        }
        BigDecimal decimal = new BigDecimal(Double.toString(value)).stripTrailingZeros();
        String digits = decimal.unscaledValue().abs().toString();
        int exponent = digits.length() - 1 - decimal.scale();
        String sign = value < 0 ? "-" : "";
        if (exponent >= -4 && exponent < 16) {
            String plain = decimal.abs().toPlainString();
            return sign + (plain.indexOf('.') < 0 ? plain + ".0" : plain);
        }
        String mantissa = digits.length() == 1 ? digits : digits.charAt(0) + "." + digits.substring(1);
        return sign + mantissa + "e" + (exponent < 0 ? "-" : "+") + String.format("%02d", Math.abs(exponent));
    }

    /** Zaqar's {@code options.get(key, '')} written into a header: a string as it is, anything else as text. */
    private static String optionText(JsonNode option) {
        if (option == null || option.isNull()) {
            return "";
        }
        return option.isTextual() ? option.asText() : pythonJson(option);
    }

    /**
     * The first non-blank value of {@code name} in a query (names compared ignoring case), decoded as Python's
     * {@code parse_qs} does; null when there is none.
     */
    private static String queryParameter(String query, String name) {
        for (String pair : query.split("[&;]")) {
            int equals = pair.indexOf('=');
            if (equals < 0) {
                continue;
            }
            String key = decode(pair.substring(0, equals), true);
            String value = decode(pair.substring(equals + 1), true);
            if (key.equalsIgnoreCase(name) && !value.isEmpty()) {
                return value;
            }
        }
        return null;
    }

    private static String decode(String text, boolean plusIsSpace) {
        try {
            return URLDecoder.decode(plusIsSpace ? text : text.replace("+", "%2B"), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            // A stray '%': taken as it is, as Python's unquote does.
            return text;
        }
    }

    private static boolean hasLineBreak(String text) {
        return text.indexOf('\r') >= 0 || text.indexOf('\n') >= 0;
    }

    /** A header's value on one line: a line break would end the header (and could start another). */
    private static String oneLine(String text) {
        return text.replace("\r\n", " ").replace('\r', ' ').replace('\n', ' ');
    }

    private static JsonNode readObject(String json) {
        if (json == null) {
            return JSON.createObjectNode();
        }
        try {
            JsonNode node = JSON.readTree(json);
            return node != null && node.isObject() ? node : JSON.createObjectNode();
        } catch (IOException e) {
            return JSON.createObjectNode();
        }
    }
}
