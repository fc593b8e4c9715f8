package io.pigeon.ids;

import java.util.Optional;
import java.util.UUID;
import java.util.regex.Pattern;

/** UUIDs in their canonical form only (8-4-4-4-12 hexadecimal digits), as the API requires. */
public final class Uuids {

    private static final Pattern CANONICAL =
            Pattern.compile("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");

    private Uuids() {}

    /**
     * The forms Zaqar accepts for {@code Client-ID} (Python's {@code uuid.UUID}): 32 hexadecimal digits,
     * hyphens anywhere or nowhere, optionally in braces or after {@code urn:uuid:}. python-zaqarclient
     * sends 32 digits without hyphens, so refusing that form would lock out the official client.
     */
    public static Optional<UUID> parseLenient(String value) {
        if (value == null) {
            return Optional.empty();
        }
        String hex = value.trim().replace("urn:", "").replace("uuid:", "");
        if (hex.startsWith("{") && hex.endsWith("}")) {
            hex = hex.substring(1, hex.length() - 1);
        }
        hex = hex.replace("-", "");
        if (hex.length() != 32 || !Hex.isHex(hex)) {
            return Optional.empty();
        }
        return Optional.of(new UUID(
                Long.parseUnsignedLong(hex.substring(0, 16), 16), Long.parseUnsignedLong(hex.substring(16), 16)));
    }

    public static Optional<UUID> parseCanonical(String value) {
        if (value == null || !CANONICAL.matcher(value).matches()) {
            return Optional.empty();
        }
        return Optional.of(UUID.fromString(value));
    }
}
