package io.pigeon.api;

import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.jboss.logging.Logger;

/**
 * Requests the router itself refuses before any resource is matched (an HTTP/1.1 request without {@code Host}
 * is one): answered 400 with the error document, as every other refusal is, and logged at DEBUG. Left to the
 * framework's error handler they were answered without the document and each wrote an ERROR line with an error
 * id, so anyone could fill the log with them. Anything else goes on to the framework's handling unchanged.
 */
@ApplicationScoped
public class RouterRefusals {

    private static final Logger LOG = Logger.getLogger(RouterRefusals.class);

    void install(@Observes Router router) {
        router.route().order(Integer.MIN_VALUE).failureHandler(this::refuse);
    }

    void refuse(RoutingContext context) {
        if (context.statusCode() != 400 || context.response().headWritten()) {
            context.next();
            return;
        }
        LOG.debugf(
                context.failure(),
                "Refused before routing: %s %s",
                context.request().method(),
                context.request().path());
        new ErrorDocument(
                        "Bad request",
                        context.request().authority() == null
                                ? "The request names no host: HTTP/1.1 requests carry a Host header."
                                : "The request could not be routed.")
                .endWithClose(context.response(), 400);
    }
}
