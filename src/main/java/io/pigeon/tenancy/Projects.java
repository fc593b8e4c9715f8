package io.pigeon.tenancy;

import io.pigeon.rules.Rejection;

/** Which project a request acts for: the rules of project ids, named by {@code X-Project-Id} or a token. */
public final class Projects {

    public static final String HEADER = "X-Project-Id";

    /** Projects are bounded like Keystone's ids, so that a header cannot bloat the catalogue. */
    public static final int MAX_PROJECT_ID_LENGTH = 256;

    /**
     * The project used when v1 is called without {@code X-Project-Id}, as Zaqar does with auth off. No
     * header value can name it, so it never mixes with a real project.
     */
    public static final String DEFAULT_PROJECT = "";

    private Projects() {}

    /** v1 and v3 accept a request that names no project and use the default project. */
    public static String optional(String header) {
        if (header == null || header.isEmpty()) {
            return DEFAULT_PROJECT;
        }
        return validated(header);
    }

    /** v2 requires a project. */
    public static String required(String header) {
        if (header == null || header.isEmpty()) {
            throw new Rejection(Rejection.Reason.PROJECT_MISSING, "The header X-PROJECT-ID was missing");
        }
        return validated(header);
    }

    private static String validated(String header) {
        if (header.length() > MAX_PROJECT_ID_LENGTH || !isPrintableAscii(header)) {
            throw new Rejection(
                    Rejection.Reason.INVALID_IDENTIFICATION,
                    "The format of the submitted queue name or project id is not valid. \"X-Project-Id\" must be "
                            + "1 to " + MAX_PROJECT_ID_LENGTH + " printable ASCII characters.");
        }
        return header;
    }

    private static boolean isPrintableAscii(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x20 || c > 0x7e) {
                return false;
            }
        }
        return true;
    }
}
