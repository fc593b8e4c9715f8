package io.pigeon.api;

import io.pigeon.ids.Uuids;
import java.util.UUID;

/**
 * The {@code Client-ID} header: a UUID in any form Zaqar accepts. v2 requires it on every call; v1 only to post
 * and to list messages, and checks it elsewhere when sent.
 */
public final class ClientIds {

    public static final String HEADER = "Client-ID";

    private ClientIds() {}

    public static UUID require(String header) {
        if (header == null || header.isBlank()) {
            throw new ApiException(400, "Missing header value", "The \"Client-ID\" header is required.");
        }
        return parse(header);
    }

    /** A header that is sent, even empty, must be a UUID; none is fine. */
    public static void checkIfSent(String header) {
        if (header != null) {
            parse(header);
        }
    }

    private static UUID parse(String header) {
        return Uuids.parseLenient(header)
                .orElseThrow(() -> new ApiException(
                        400,
                        "Wrong UUID value",
                        "Malformed hexadecimal UUID. \"Client-ID\" must be a UUID of 32 hexadecimal digits, "
                                + "e.g. 3381af92-2b9e-11e3-b191-71861300734c."));
    }
}
