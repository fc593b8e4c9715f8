package io.pigeon.api;

import io.vertx.core.http.HttpServerRequest;
import jakarta.ws.rs.core.MediaType;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

/**
 * A {@code Content-Type} header that is not one media type ({@code application/json, text/plain}, {@code a/<x>}) made
 * the router fail with a bare "HTTP 400 Bad Request" that named nothing, on the API and the console alike. It is
 * refused here first, naming the header and what it holds; nothing else about the type is decided here (each edge
 * still says which types it takes).
 */
public class ContentTypeHeader {

    private static final int SHOWN_CHARACTERS = 100;

    @ServerRequestFilter(preMatching = true)
    public void refuseUnreadableContentType(HttpServerRequest request) {
        String header = request.getHeader("Content-Type");
        if (header == null || header.isBlank()) {
            return;
        }
        try {
            MediaType.valueOf(header);
        } catch (IllegalArgumentException notOneType) {
            throw new ApiException(
                    400,
                    "Invalid Content-Type",
                    "The Content-Type header must be one media type, such as application/json; it is \""
                            + printable(header) + "\".");
        }
    }

    private static String printable(String value) {
        String cut = value.length() > SHOWN_CHARACTERS ? value.substring(0, SHOWN_CHARACTERS) + "..." : value;
        return cut.replaceAll("[^\\x20-\\x7e]", "?");
    }
}
