package io.pigeon.api.ws;

import io.pigeon.api.ErrorDocument;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.jboss.logging.Logger;

/**
 * Refuses a websocket upgrade sent by a web page whose origin may not open a socket ({@link SocketOrigins}), with 403
 * and the error document, before it is upgraded or anything else reads it.
 *
 * <p>It runs on the router, ahead of the socket endpoints, because the endpoints' own upgrade check
 * ({@code HttpUpgradeCheck}) can refuse only with a bare status. It looks at every request that asks for a websocket,
 * whatever its path: one carrying {@code Sec-WebSocket-Key} (what the socket endpoints upgrade on) or naming
 * {@code websocket} in {@code Upgrade}. Every {@code Origin} it carries must be allowed, and so must the older
 * {@code Sec-WebSocket-Origin} of the draft protocols. Ordinary requests are not looked at.
 */
@ApplicationScoped
public class CrossOriginUpgrades {

    private static final Logger LOG = Logger.getLogger(CrossOriginUpgrades.class);

    private static final String DRAFT_ORIGIN = "Sec-WebSocket-Origin";
    private static final String KEY = "Sec-WebSocket-Key";

    private final SocketOrigins origins;

    CrossOriginUpgrades(WebsocketSettings websocketSettings) {
        this.origins = SocketOrigins.of(websocketSettings.allowedOrigins());
    }

    /** Right after the check of the host (io.pigeon.api.MisdirectedRequests), ahead of the socket endpoints. */
    void install(@Observes Router router) {
        router.route().order(Integer.MIN_VALUE + 1).handler(this::check);
    }

    void check(RoutingContext context) {
        HttpServerRequest request = context.request();
        if (!asksForSocket(request)) {
            context.next();
            return;
        }
        List<String> sent = new ArrayList<>(request.headers().getAll(HttpHeaders.ORIGIN));
        sent.addAll(request.headers().getAll(DRAFT_ORIGIN));
        String host = request.getHeader(HttpHeaders.HOST);
        for (String origin : sent) {
            if (!origins.allows(origin, host)) {
                String description = "A websocket may not be opened from the page origin '"
                        + ErrorDocument.printable(origin) + "': only from Pigeon's own origin and those of "
                        + SocketOrigins.SETTING + ".";
                LOG.debugf("Refused (403): %s", description);
                new ErrorDocument("Forbidden", description).endWithClose(context.response(), 403);
                return;
            }
        }
        context.next();
    }

    private static boolean asksForSocket(HttpServerRequest request) {
        if (request.headers().contains(KEY)) {
            return true;
        }
        for (String upgrade : request.headers().getAll(HttpHeaders.UPGRADE)) {
            if (upgrade.toLowerCase(Locale.ROOT).contains("websocket")) {
                return true;
            }
        }
        return false;
    }
}
