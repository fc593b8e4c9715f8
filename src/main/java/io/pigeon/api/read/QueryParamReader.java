package io.pigeon.api.read;

import io.pigeon.rules.Rejection;
import java.util.Locale;

/** Parses query parameters strictly: a value that is present but malformed is a 400, never a default. */
public final class QueryParamReader {

    private QueryParamReader() {}

    /** The integer value of {@code name}, or {@code null} when absent. */
    public static Integer integer(String name, String value) {
        if (value == null) {
            return null;
        }
        try {
            return Integer.valueOf(value.trim());
        } catch (NumberFormatException e) {
            throw Rejection.invalidParameter(name, "The value must be an integer.");
        }
    }

    /** The boolean value of {@code name}, or {@code fallback} when absent. */
    public static boolean bool(String name, String value, boolean fallback) {
        if (value == null) {
            return fallback;
        }
        return switch (value.trim().toLowerCase(Locale.ROOT)) {
            case "true", "1", "yes", "on" -> true;
            case "false", "0", "no", "off" -> false;
            default -> throw Rejection.invalidParameter(name, "The value must be \"true\" or \"false\".");
        };
    }
}
