package io.pigeon.api.console;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pigeon.api.StrictUtf8;
import io.pigeon.rules.Rejection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A console form as the browser sends it ({@code application/x-www-form-urlencoded}), read by the console itself rather
 * than by the HTTP layer's form decoder. That decoder answered a field over 2,048 bytes with a 413 that named nothing,
 * longer ones with a 500 and an error logged per chunk, and a malformed escape ({@code %ZZ}) or 1,001 fields with no
 * answer at all (its exception escaped the request). Here the whole body is already bounded by
 * {@code quarkus.http.limits.max-body-size}; the console keeps the fields it knows, each given once, of at most
 * {@value #MAX_FIELDS} fields; a repeated or malformed field is a 400 naming it.
 */
final class ConsoleFormBody {

    /** More fields than any console form has; a form with more is not one of the console's. */
    static final int MAX_FIELDS = 16;

    private static final Pattern INTEGER = Pattern.compile("-?[0-9]{1,9}");

    private final Map<String, String> fields;

    private ConsoleFormBody(Map<String, String> fields) {
        this.fields = fields;
    }

    /**
     * Parses {@code raw} (null: an empty form), keeping only fields named in {@code known} (others are dropped):
     * refused are a repeated field, a malformed percent escape, bytes that are not UTF-8 and more than
     * {@value #MAX_FIELDS} fields.
     */
    static ConsoleFormBody parse(String raw, Set<String> known) {
        Map<String, String> fields = new LinkedHashMap<>();
        if (raw == null || raw.isEmpty()) {
            return new ConsoleFormBody(Collections.unmodifiableMap(fields));
        }
        int count = 0;
        for (String pair : raw.split("&", -1)) {
            if (pair.isEmpty()) {
                continue;
            }
            if (++count > MAX_FIELDS) {
                throw Rejection.invalidBody(
                        "The form has more than " + MAX_FIELDS + " fields; the console's forms have fewer.");
            }
            int equals = pair.indexOf('=');
            String name = decode(equals < 0 ? pair : pair.substring(0, equals), "a field name");
            if (!known.contains(name)) {
                continue; // not one of this form's fields (a named button, say): dropped, as the API drops them
            }
            String value = decode(equals < 0 ? "" : pair.substring(equals + 1), "the field \"" + name + "\"");
            if (fields.putIfAbsent(name, value) != null) {
                throw Rejection.invalidBody("The form field \"" + name + "\" is given more than once.");
            }
        }
        return new ConsoleFormBody(Collections.unmodifiableMap(fields));
    }

    /**
     * Refuses (400) a form not sent as a browser sends it, {@code application/x-www-form-urlencoded}: the console reads
     * no other type, and says so on its own page rather than as the API's 415 document. Its escapes are read as UTF-8
     * whatever charset the type names (the console's pages are UTF-8, so a browser encodes its forms so).
     */
    static void requireFormType(String contentType) {
        String type = contentType == null ? "" : contentType.strip().toLowerCase(Locale.ROOT);
        int parameters = type.indexOf(';');
        if (!(parameters < 0 ? type : type.substring(0, parameters))
                .strip()
                .equals("application/x-www-form-urlencoded")) {
            throw Rejection.invalidRequest("The console's forms are sent as application/x-www-form-urlencoded"
                    + " (Content-Type), as a browser sends them; this request's Content-Type is \""
                    + printable(contentType == null ? "" : contentType) + "\".");
        }
    }

    /** The field's value; null when the form did not hold it. */
    String get(String name) {
        return fields.get(name);
    }

    /** Percent-decodes {@code text} ({@code +} is a space) as UTF-8, refusing a malformed escape or invalid bytes. */
    private static String decode(String text, String what) {
        byte[] bytes = new byte[text.length()];
        int length = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '+') {
                bytes[length++] = ' ';
            } else if (c == '%') {
                int high = i + 2 < text.length() ? Character.digit(text.charAt(i + 1), 16) : -1;
                int low = high >= 0 ? Character.digit(text.charAt(i + 2), 16) : -1;
                if (low < 0) {
                    throw Rejection.invalidBody("The form's " + what
                            + " holds a malformed escape: '%' must be followed by two hexadecimal digits.");
                }
                bytes[length++] = (byte) (high * 16 + low);
                i += 2;
            } else if (c > 0x7f) {
                throw Rejection.invalidBody("The form's " + what
                        + " holds a character that is not percent-encoded, as a browser sends it.");
            } else {
                bytes[length++] = (byte) c;
            }
        }
        return StrictUtf8.decode(bytes, length)
                .orElseThrow(() -> Rejection.invalidBody("The form's " + what + " is not UTF-8 once decoded."));
    }

    private static String printable(String value) {
        String cut = value.length() > 64 ? value.substring(0, 64) + "..." : value;
        return cut.replaceAll("[^\\x20-\\x7e]", "?");
    }

    /**
     * Sets a form field into a document as the API would get it: absent when blank, a number when it is one, else text
     * (at most 64 characters: the API refuses it with its own words).
     */
    static void putAsTheApiTakesIt(ObjectNode into, String field, String value) {
        if (value == null || value.isBlank()) {
            return;
        }
        String trimmed = value.strip();
        if (INTEGER.matcher(trimmed).matches()) {
            into.put(field, Integer.parseInt(trimmed));
        } else {
            into.put(field, trimmed.length() > 64 ? trimmed.substring(0, 64) : trimmed);
        }
    }
}
