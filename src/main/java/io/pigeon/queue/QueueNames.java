package io.pigeon.queue;

import io.pigeon.rules.Rejection;
import java.util.regex.Pattern;

/** The rule for queue names: 1 to 64 bytes of US-ASCII letters, digits, underscores and hyphens. */
public final class QueueNames {

    public static final int MAX_LENGTH = 64;
    private static final Pattern VALID = Pattern.compile("[A-Za-z0-9_-]{1," + MAX_LENGTH + "}");

    private QueueNames() {
    }

    public static void validate(String name) {
        if (name == null || !VALID.matcher(name).matches()) {
            throw new Rejection(Rejection.Reason.INVALID_IDENTIFICATION, "The format of the submitted queue name or project id is not valid. Queue names are 1 to "
                            + MAX_LENGTH + " bytes of ASCII letters, digits, underscores and hyphens.");
        }
    }
}
