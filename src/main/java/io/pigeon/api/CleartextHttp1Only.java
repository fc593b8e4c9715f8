package io.pigeon.api;

import io.quarkus.vertx.http.HttpServerOptionsCustomizer;
import io.vertx.core.http.HttpServerOptions;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Serves plain-HTTP connections as HTTP/1.1 only, so that each counts against
 * {@code quarkus.http.limits.max-connections} from the moment it is accepted.
 *
 * <p>With cleartext HTTP/2 on (Vert.x's default), Vert.x cannot tell HTTP/1.1 from HTTP/2 until it has read the
 * client's first bytes (the HTTP/2 preface) and then a whole request head (an {@code Upgrade: h2c} header), and only
 * then hands the connection to Quarkus's connection handler, which counts it. A socket that sends nothing, or half a
 * head, was never counted, so any number of them could exhaust the file descriptors. With it off, the connection
 * handler runs as the socket is accepted. HTTPS is unchanged: HTTP/2 there is chosen by TLS ALPN during the handshake.
 */
@ApplicationScoped
public class CleartextHttp1Only implements HttpServerOptionsCustomizer {

    @Override
    public void customizeHttpServer(HttpServerOptions options) {
        options.setHttp2ClearTextEnabled(false);
    }
}
