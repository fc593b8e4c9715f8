package io.pigeon.api;

import io.quarkus.runtime.annotations.RegisterForReflection;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonObject;

/** The body of every 4xx and 5xx answer, in Zaqar's shape. */
@RegisterForReflection
public record ErrorDocument(String title, String description) {

    /**
     * Ends {@code response} with this document and {@code status}, closing the connection: the answer of the
     * router-level refusals, given before any resource reads the request.
     */
    public void endWithClose(HttpServerResponse response, int status) {
        response.setStatusCode(status)
                .putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
                .putHeader(HttpHeaders.CONNECTION, "close")
                .end(new JsonObject()
                        .put("title", title)
                        .put("description", description)
                        .encode());
    }

    /**
     * A value the client sent, fit to quote in a description or a log line: at most 100 characters, and every
     * character outside printable ASCII shown as {@code ?}.
     */
    public static String printable(String value) {
        String cut = value.length() > 100 ? value.substring(0, 100) + "..." : value;
        return cut.replaceAll("[^\\x20-\\x7e]", "?");
    }
}
