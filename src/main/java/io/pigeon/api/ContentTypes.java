package io.pigeon.api;

import jakarta.ws.rs.core.MediaType;

/** Media types: every body Pigeon reads is JSON; the home documents are JSON-home. */
public final class ContentTypes {

    /** The type of the v1 and v2 home documents. */
    public static final String JSON_HOME = "application/json-home";

    /** How much of an unreadable header a refusal quotes. */
    private static final int SHOWN_CHARACTERS = 100;

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

    /**
     * Why {@code contentType} is refused before any endpoint looks at it, or null: a header that is not one media type
     * ({@code application/json, text/plain}, {@code a/<x>}) fails the router with a bare 400 that names nothing, on
     * the API and the console alike; this names the header and what it holds. Asked only once a request has failed.
     */
    public static ApiException unreadableContentType(String contentType) {
        if (contentType == null || contentType.isBlank()) {
            return null;
        }
        try {
            MediaType.valueOf(contentType);
            return null;
        } catch (IllegalArgumentException notOneType) {
            String cut = contentType.length() > SHOWN_CHARACTERS
                    ? contentType.substring(0, SHOWN_CHARACTERS) + "..."
                    : contentType;
            return new ApiException(
                    400,
                    "Invalid Content-Type",
                    "The Content-Type header must be one media type, such as application/json; it is \""
                            + cut.replaceAll("[^\\x20-\\x7e]", "?") + "\".");
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
