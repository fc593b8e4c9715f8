package io.pigeon.api;

import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.net.HostAndPort;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * Refuses, before anything else reads it, a request that names a host this Pigeon does not serve
 * ({@link ServedHosts}): the API, the console, the websocket upgrade and {@code /q} alike, as a page that rebinds its
 * own name to Pigeon's address could otherwise read all of them. It is a check of what the request names, not of who
 * sends it.
 *
 * <p>The host is read wherever a request names one: every {@code Host} header, an absolute request target
 * ({@code GET http://host/path}, whose host RFC 9112 puts before the header's), and the authority the HTTP layer
 * settled on (HTTP/2's {@code :authority}). A host not served is answered 421 Misdirected Request (RFC 9110: the
 * server is not able to answer for that host; a client may try another connection, and gets the same), with the error
 * document naming the host; a request naming its host more than once ({@code Host} twice), or a host that is not one
 * ({@code localhost:8080@evil}), is answered 400, which RFC 9112 asks for. A request naming no host at all (HTTP/1.0
 * without {@code Host}) comes from no browser and goes on; an HTTP/1.1 one is refused by the router
 * ({@link RouterRefusals}). Refusals close the connection and are logged at DEBUG only.
 */
@ApplicationScoped
public class MisdirectedRequests {

    private static final Logger LOG = Logger.getLogger(MisdirectedRequests.class);

    /** The authority of an absolute-form request target. */
    private static final Pattern ABSOLUTE_TARGET = Pattern.compile("^[A-Za-z][A-Za-z0-9+.-]*://([^/?#]*)");

    private final ServedHosts served;
    private final EarlyRefusals refusals;

    MisdirectedRequests(
            HttpSettings httpSettings,
            @ConfigProperty(name = "quarkus.http.host", defaultValue = "0.0.0.0") String boundHost,
            EarlyRefusals refusals) {
        this.served = ServedHosts.of(httpSettings.allowedHosts(), boundHost);
        this.refusals = refusals;
    }

    /** First on the router, ahead of the body limit, authentication and every resource. */
    void install(@Observes Router router) {
        router.route().order(Integer.MIN_VALUE).handler(this::check);
    }

    void check(RoutingContext context) {
        HttpServerRequest request = context.request();
        List<String> hosts = request.headers().getAll(HttpHeaders.HOST);
        if (hosts.size() > 1) {
            refuse(
                    context,
                    400,
                    "Bad request",
                    "The request names its host more than once (" + hosts.size() + " Host headers): send one.");
            return;
        }
        List<String> named = new ArrayList<>(hosts);
        Matcher absolute = ABSOLUTE_TARGET.matcher(request.uri());
        if (absolute.find()) {
            named.add(absolute.group(1));
        }
        for (String name : named) {
            Optional<Authority> authority = Authority.parse(name.trim());
            if (authority.isEmpty()) {
                refuse(
                        context,
                        400,
                        "Bad request",
                        "The request's host '" + ErrorDocument.printable(name)
                                + "' is not a host name or address, with an optional port.");
                return;
            }
            if (!served.serves(authority.get())) {
                misdirected(context, name);
                return;
            }
        }
        HostAndPort settled = request.authority();
        if (settled != null) {
            Optional<Authority> host = Authority.parseHost(settled.host());
            if (host.isEmpty() || !served.serves(host.get())) {
                misdirected(context, settled.host());
                return;
            }
        }
        context.next();
    }

    /** 421, in the shape of the request's door (an SQS request reads an SQS error: {@link EarlyRefusals}). */
    private void misdirected(RoutingContext context, String name) {
        String description = "This Pigeon does not serve the host '" + ErrorDocument.printable(name)
                + "': call it by a name it serves (" + ServedHosts.SETTING + ").";
        LOG.debugf("Refused (421): %s", description);
        refusals.refuse(context.request(), EarlyRefusal.MISDIRECTED, description);
    }

    private static void refuse(RoutingContext context, int status, String title, String description) {
        LOG.debugf("Refused (%d): %s", status, description);
        new ErrorDocument(title, description).endWithClose(context.response(), status);
    }
}
