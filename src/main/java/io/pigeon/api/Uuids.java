package io.pigeon.api;

import java.util.Optional;
import java.util.UUID;
import java.util.regex.Pattern;

/** UUIDs in their canonical form only (8-4-4-4-12 hexadecimal digits), as the API requires. */
public final class Uuids {

    private static final Pattern CANONICAL =
            Pattern.compile("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");

    private Uuids() {
    }

    public static Optional<UUID> parseCanonical(String value) {
        if (value == null || !CANONICAL.matcher(value).matches()) {
            return Optional.empty();
        }
        return Optional.of(UUID.fromString(value));
    }
}
