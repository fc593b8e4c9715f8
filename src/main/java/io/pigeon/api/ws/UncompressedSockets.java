package io.pigeon.api.ws;

import io.quarkus.vertx.http.HttpServerOptionsCustomizer;
import io.vertx.core.http.HttpServerOptions;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * The websocket options Quarkus has no setting for. Never agrees to compress websocket frames, per message ({@code permessage-deflate}) or per frame
 * ({@code deflate-frame}, {@code x-webkit-deflate-frame}), both of which Vert.x offers by default.
 *
 * <p>The size bound of a frame and of a message is checked after Netty inflates them, and inflating runs on the event
 * loop: a 100 KB compressed frame held the replica for 11 s while it grew to 100 MB, and a 900 KB one took the
 * resident memory from 245 MB to 3 GB. Zaqar's clients do not compress (python-zaqarclient's websocket-client asks for
 * no extension). Without an agreed extension, a frame with RSV1 set is a protocol error and closes its socket. And a
 * close the server begins ends within {@link #CLOSING_TIMEOUT_SECONDS}, answered or not.
 */
@ApplicationScoped
public class UncompressedSockets implements HttpServerOptionsCustomizer {

    @Override
    public void customizeHttpServer(HttpServerOptions options) {
        refuseCompression(options);
    }

    @Override
    public void customizeHttpsServer(HttpServerOptions options) {
        refuseCompression(options);
    }

    private static void refuseCompression(HttpServerOptions options) {
        options.setPerMessageWebSocketCompressionSupported(false);
        options.setPerFrameWebSocketCompressionSupported(false);
        // A client that never answers the server's close frame keeps its connection this long (Vert.x: 10 s), and
        // shutdown waits for it: 2 s is ample for a client that does answer.
        options.setWebSocketClosingTimeout(CLOSING_TIMEOUT_SECONDS);
    }

    /** How long the server waits for a client's answer to its close frame before it drops the connection. */
    static final int CLOSING_TIMEOUT_SECONDS = 2;
}
