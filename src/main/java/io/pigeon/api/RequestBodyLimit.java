package io.pigeon.api;

import io.pigeon.config.PigeonConfig;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.ws.rs.container.ContainerRequestContext;
import java.io.ByteArrayInputStream;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

/**
 * Bounds every request body by {@code pigeon.max-request-body}, ahead of the REST layer, and refuses a larger one with
 * 413 and the error document (or the SQS error, on an SQS request: {@link EarlyRefusals}). A declared body
 * (Content-Length) past the bound is refused before anything reads it. A body streamed without a length (chunked) is
 * read here as it arrives, up to the bound, and handed to the REST layer whole; past the bound it is refused at once
 * and the connection closed. Were such a body left to the REST layer, the HTTP layer's own bound would answer 413 in
 * the middle of reading it and the REST layer would then try to answer the same request again, an ERROR with a stack
 * trace for every such request: a client's fault logged as Pigeon's, and a lever to flood the log.
 * {@code quarkus.http.limits.max-body-size} is set to the same number, as a second line.
 */
@ApplicationScoped
public class RequestBodyLimit {

    /** Marks a request whose streamed body was read here. */
    private static final String STREAMED = RequestBodyLimit.class.getName() + ".streamed";

    private final long maxRequestBody;
    private final BodyHandler streamedBodies;
    private final EarlyRefusals refusals;

    public RequestBodyLimit(PigeonConfig config, EarlyRefusals refusals) {
        this.maxRequestBody = config.maxRequestBody();
        this.refusals = refusals;
        // Read as the bytes arrive (no buffer sized ahead of them), never to files, forms left to the REST layer.
        this.streamedBodies = BodyHandler.create(false)
                .setBodyLimit(maxRequestBody)
                .setPreallocateBodyBuffer(false)
                .setMergeFormAttributes(false);
    }

    /**
     * Installed early on the router, ahead of the REST layer, but after the routes of order {@code MIN_VALUE}: a streamed
     * body is read here before the next route runs, and {@link RequestDeadlines}'s route must have put the body's clock
     * on the connection first (without it a chunked body was timed by the head's deadline).
     */
    void install(@Observes Router router) {
        router.route().order(Integer.MIN_VALUE + 2).handler(this::limit).failureHandler(this::refuseStreamed);
    }

    void limit(RoutingContext context) {
        String declared = context.request().getHeader(HttpHeaders.CONTENT_LENGTH);
        if (declared != null && exceeds(declared)) {
            tooLarge(context);
            return;
        }
        if (declared == null && streamed(context)) {
            context.put(STREAMED, Boolean.TRUE);
            streamedBodies.handle(context); // goes on with the body read, or fails the request with 413
            return;
        }
        context.next();
    }

    /**
     * Hands a streamed body read here to the REST layer, which would otherwise find the request ended and read it as
     * empty: as the request's entity, before the REST layer looks for one.
     */
    @ServerRequestFilter(preMatching = true)
    public void streamedBody(ContainerRequestContext request, RoutingContext context) {
        if (context.get(STREAMED) != null && context.body().buffer() != null) {
            request.setEntityStream(
                    new ByteArrayInputStream(context.body().buffer().getBytes()));
        }
    }

    /** A streamed body past the bound, as the body handler reports it: the client's fault, answered, not logged. */
    void refuseStreamed(RoutingContext context) {
        if (context.statusCode() == 413 && !context.response().ended()) {
            tooLarge(context);
            return;
        }
        context.next();
    }

    /** 413 in the shape of the request's door (Zaqar's error document, or an SQS error), the connection closed. */
    private void tooLarge(RoutingContext context) {
        refusals.refuse(
                context.request(),
                EarlyRefusal.TOO_LARGE,
                "The request body may not exceed " + maxRequestBody + " bytes.");
    }

    private static boolean streamed(RoutingContext context) {
        String encoding = context.request().getHeader(HttpHeaders.TRANSFER_ENCODING);
        return encoding != null && !encoding.isBlank();
    }

    private boolean exceeds(String declared) {
        try {
            return Long.parseLong(declared.trim()) > maxRequestBody;
        } catch (NumberFormatException e) {
            return false; // a malformed length is the HTTP layer's to refuse
        }
    }
}
