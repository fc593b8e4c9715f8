package io.pigeon.api.read;

import io.pigeon.dispatch.DispatchService;
import io.pigeon.rules.Rejection;
import java.util.regex.Pattern;

/** The values a /v3 (delayed dispatch) request names in its query and path: push time, update mode, ids. */
public final class DispatchRequestReader {

    /** A push's {@code ontime}: digits with an optional fraction only (Java would also read "1e3" or "Infinity"). */
    private static final Pattern UNIX_SECONDS = Pattern.compile("\\d{1,12}(\\.\\d{1,9})?");

    private DispatchRequestReader() {}

    public static Double ontime(String value) {
        if (value == null) {
            return null;
        }
        if (!UNIX_SECONDS.matcher(value).matches()) {
            throw Rejection.invalidParameter(
                    "ontime", "The value must be a unix time in seconds from 0 to " + DispatchService.MAX_ONTIME + ".");
        }
        return Double.parseDouble(value);
    }

    public static DispatchService.Update update(String value) {
        if (value == null || value.equals("once")) {
            return DispatchService.Update.ONCE;
        }
        if (value.equals("always")) {
            return DispatchService.Update.ALWAYS;
        }
        throw Rejection.invalidParameter("update", "The value must be \"once\" (the default) or \"always\".");
    }

    public static long groupId(String name, String value) {
        return id(name, value, "a group id");
    }

    /** An item id, as a page's {@code marker} names one. */
    public static long itemId(String name, String value) {
        return id(name, value, "an item id");
    }

    private static long id(String name, String value, String what) {
        try {
            long id = Long.parseLong(value);
            if (id >= 0) {
                return id;
            }
        } catch (NumberFormatException e) {
            // refused below
        }
        throw Rejection.invalidParameter(name, "The value must be " + what + " (a non-negative integer).");
    }
}
