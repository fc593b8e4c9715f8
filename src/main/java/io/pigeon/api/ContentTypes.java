package io.pigeon.api;

import jakarta.ws.rs.core.MediaType;

/** Media types: every body Pigeon reads is JSON; the home documents are JSON-home. */
public final class ContentTypes {

    /** The type of the v1 and v2 home documents. */
    public static final String JSON_HOME = "application/json-home";

    private ContentTypes() {}

    /** A missing Content-Type is taken as JSON, as Zaqar does; anything else must be JSON. */
    public static void requireJson(String contentType) {
        if (contentType == null || contentType.isBlank()) {
            return;
        }
        MediaType type;
        try {
            type = MediaType.valueOf(contentType);
        } catch (IllegalArgumentException e) {
            throw invalidContentType(contentType);
        }
        boolean json = "application".equalsIgnoreCase(type.getType())
                && ("json".equalsIgnoreCase(type.getSubtype())
                        || type.getSubtype().toLowerCase().endsWith("+json"));
        if (!json) {
            throw invalidContentType(contentType);
        }
    }

    public static ApiException invalidContentType(String contentType) {
        String mediaType = contentType == null ? "" : contentType.split(";", 2)[0].trim();
        return new ApiException(
                400,
                "Invalid Content-Type",
                "Endpoint does not accept `" + mediaType + "` content; currently supported media type is "
                        + "`application/json`; specify proper client-side media type with the \"Content-Type\" header.");
    }
}
