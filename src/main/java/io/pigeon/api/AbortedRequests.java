package io.pigeon.api;

import io.vertx.core.VertxException;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.io.IOException;
import org.jboss.logging.Logger;

/**
 * A request whose connection closed before its body had all arrived: the client went away mid-body, or
 * {@link RequestDeadlines} cut it for arriving too slowly. Nobody is left to answer, and it is no fault of Pigeon's:
 * logged at DEBUG and dropped. Left to the framework's error handler, each wrote an ERROR line ("HTTP Request to …
 * failed", with an error id), one per connection, so that any client could fill the log by opening connections and
 * closing them mid-body. Any other failure goes on to the framework's handling unchanged.
 */
@ApplicationScoped
public class AbortedRequests {

    private static final Logger LOG = Logger.getLogger(AbortedRequests.class);

    void install(@Observes Router router) {
        router.route().order(Integer.MIN_VALUE).failureHandler(this::drop);
    }

    void drop(RoutingContext context) {
        Throwable failure = context.failure();
        boolean closed = ClosedConnections.closedUnder(failure)
                // A read cut by the closing, however reported; a fault of Pigeon's on a closed connection still goes
                // on.
                || (context.response().closed()
                        && (failure == null || failure instanceof IOException || failure instanceof VertxException));
        if (!closed) {
            context.next();
            return;
        }
        LOG.debugf(
                "A request's connection closed before it was answered: %s %s (%s)",
                context.request().method(), context.request().path(), failure);
    }
}
