package io.pigeon.api.read;

import com.fasterxml.jackson.databind.JsonNode;
import io.pigeon.rules.Rejection;
import java.util.Locale;

/**
 * How long a claim or pop asks to wait for a message (Pigeon's long polling): a claim body's {@code "wait"} field, or
 * the RFC 7240 preference {@code Prefer: wait=N}. The body's value is checked strictly (the caller asked for it in the
 * document); the header's, as RFC 7240 asks of a preference, is honoured as far as the server can (capped at the
 * longest wait) and ignored when it does not read.
 */
public final class WaitReader {

    /** The body field. */
    public static final String FIELD = "wait";

    /** The response header that says which wait a {@code Prefer} header was honoured with. */
    public static final String PREFERENCE_APPLIED = "Preference-Applied";

    private WaitReader() {}

    /** The body's {@code wait}, 0 to {@code max} seconds; null when absent. */
    public static Integer fromBody(JsonNode body, int max) {
        JsonNode value = body.get(FIELD);
        if (value == null) {
            return null;
        }
        String bound = "The \"" + FIELD + "\" field must be an integer from 0 to " + max
                + " (seconds to wait for a message; pigeon.claim-wait.max).";
        if (!value.isIntegralNumber()) {
            throw Rejection.invalidBody(bound);
        }
        if (!value.canConvertToInt() || value.intValue() < 0 || value.intValue() > max) {
            throw Rejection.invalidRequest(bound);
        }
        return value.intValue();
    }

    /**
     * The wait a {@code Prefer} header asks for, capped at {@code max}; null when it names none, or one that does not
     * read (a preference a server cannot honour is ignored, RFC 7240 section 2). Several headers arrive joined by
     * commas; the first {@code wait} counts.
     */
    public static Integer fromPrefer(String prefer, int max) {
        if (prefer == null) {
            return null;
        }
        for (String preference : prefer.split(",")) {
            String token = preference.split(";", 2)[0].trim();
            int equals = token.indexOf('=');
            if (equals < 0
                    || !token.substring(0, equals)
                            .trim()
                            .toLowerCase(Locale.ROOT)
                            .equals(FIELD)) {
                continue;
            }
            String value = token.substring(equals + 1).trim();
            if (value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")) {
                value = value.substring(1, value.length() - 1);
            }
            if (value.isEmpty() || !value.chars().allMatch(c -> c >= '0' && c <= '9')) {
                return null;
            }
            // Any number of digits reads (leading zeros included): one too long for a long is still a wait longer
            // than the cap.
            String digits = value.replaceFirst("^0+(?=.)", "");
            return digits.length() > 18 ? max : (int) Math.min(Long.parseLong(digits), max);
        }
        return null;
    }

    /** The {@code Preference-Applied} value for a wait honoured from a {@code Prefer} header. */
    public static String applied(int seconds) {
        return FIELD + "=" + seconds;
    }
}
