package io.pigeon.api;

import io.pigeon.config.PigeonConfig;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

/**
 * Refuses a request whose declared body exceeds {@code pigeon.max-request-body} before anything reads it,
 * with 413 and the error document (the HTTP layer's own limit, further out, answers without one). Every
 * document limit of the API (messages, metadata) is far below this bound. A body sent without a length
 * (chunked) is bounded by the HTTP layer with the same number ({@code quarkus.http.limits.max-body-size} is set
 * to it): it is refused with 413 once it passes the bound, without the error document, as that answer is the
 * HTTP layer's own.
 */
@ApplicationScoped
public class RequestBodyLimit {

    private final long maxRequestBody;

    public RequestBodyLimit(PigeonConfig config) {
        this.maxRequestBody = config.maxRequestBody();
    }

    /** Installed first on the router, ahead of the REST layer. */
    void install(@Observes Router router) {
        router.route().order(Integer.MIN_VALUE).handler(this::limit);
    }

    void limit(RoutingContext context) {
        String declared = context.request().getHeader(HttpHeaders.CONTENT_LENGTH);
        if (declared != null && exceeds(declared)) {
            new ErrorDocument(
                            "Request entity too large", "The request body may not exceed " + maxRequestBody + " bytes.")
                    .endWithClose(context.response(), 413);
            return;
        }
        context.next();
    }

    private boolean exceeds(String declared) {
        try {
            return Long.parseLong(declared.trim()) > maxRequestBody;
        } catch (NumberFormatException e) {
            return false; // a malformed length is the HTTP layer's to refuse
        }
    }
}
