package io.pigeon.queue;

import io.pigeon.rules.Rejection;
import java.util.regex.Pattern;

/**
 * A queue's name, valid by construction: 1 to 64 bytes of US-ASCII letters, digits, underscores and hyphens.
 * The edge makes one from a path segment; every service takes this type, so no service checks a name again.
 */
public record QueueName(String value) {

    public static final int MAX_LENGTH = 64;
    private static final Pattern VALID = Pattern.compile("[A-Za-z0-9_-]{1," + MAX_LENGTH + "}");

    public QueueName {
        if (value == null || !VALID.matcher(value).matches()) {
            throw new Rejection(Rejection.Reason.INVALID_IDENTIFICATION,
                    "The format of the submitted queue name or project id is not valid. Queue names are 1 to "
                            + MAX_LENGTH + " bytes of ASCII letters, digits, underscores and hyphens.");
        }
    }

    public static QueueName of(String value) {
        return new QueueName(value);
    }

    @Override
    public String toString() {
        return value;
    }
}
