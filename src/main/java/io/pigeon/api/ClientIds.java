package io.pigeon.api;

import io.pigeon.ids.Uuids;
import java.util.UUID;

/** The {@code Client-ID} header: required on message operations, a UUID in any form Zaqar accepts. */
public final class ClientIds {

    public static final String HEADER = "Client-ID";

    private ClientIds() {
    }

    public static UUID require(String header) {
        if (header == null || header.isBlank()) {
            throw new ApiException(400, "Missing header value", "The \"Client-ID\" header is required.");
        }
        return Uuids.parseLenient(header).orElseThrow(() -> new ApiException(400, "Wrong UUID value",
                "Malformed hexadecimal UUID. \"Client-ID\" must be a UUID of 32 hexadecimal digits, "
                        + "e.g. 3381af92-2b9e-11e3-b191-71861300734c."));
    }
}
