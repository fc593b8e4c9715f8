package io.pigeon.api.ws;

import io.quarkus.websockets.next.InboundProcessingMode;
import io.quarkus.websockets.next.OnBinaryMessage;
import io.quarkus.websockets.next.OnClose;
import io.quarkus.websockets.next.OnError;
import io.quarkus.websockets.next.OnOpen;
import io.quarkus.websockets.next.OnPongMessage;
import io.quarkus.websockets.next.OnTextMessage;
import io.quarkus.websockets.next.WebSocket;
import io.quarkus.websockets.next.WebSocketConnection;
import io.smallrye.mutiny.Uni;
import io.vertx.core.buffer.Buffer;

/**
 * Zaqar's websocket at {@code ws://host:port/v2}, for clients given a versioned URL (python-zaqarclient connects to the
 * URL as given). A plain GET of {@code /v2} still reaches the home document. The same transport as {@link ZaqarSocket}. Frames are handed to
 * {@link SocketTransport} as they come (CONCURRENT: the transport itself answers them one at a time and in order,
 * and bounds how many may wait); every callback returns at once on the event loop.
 */
@WebSocket(path = "/v2", inboundProcessingMode = InboundProcessingMode.CONCURRENT)
public class ZaqarSocketV2 {

    private final SocketTransport transport;

    ZaqarSocketV2(SocketTransport transport) {
        this.transport = transport;
    }

    @OnOpen
    public Uni<Void> open(WebSocketConnection connection) {
        transport.opened(connection);
        return Uni.createFrom().voidItem();
    }

    @OnTextMessage
    public Uni<Void> text(WebSocketConnection connection, String frame) {
        transport.text(connection, frame);
        return Uni.createFrom().voidItem();
    }

    @OnBinaryMessage
    public Uni<Void> binary(WebSocketConnection connection, Buffer frame) {
        transport.binary(connection, frame);
        return Uni.createFrom().voidItem();
    }

    @OnPongMessage
    public Uni<Void> pong(WebSocketConnection connection, Buffer data) {
        transport.pong(connection);
        return Uni.createFrom().voidItem();
    }

    @OnError
    public Uni<Void> error(WebSocketConnection connection, Throwable failure) {
        transport.failed(connection, failure);
        return Uni.createFrom().voidItem();
    }

    @OnClose
    public Uni<Void> close(WebSocketConnection connection) {
        transport.closed(connection);
        return Uni.createFrom().voidItem();
    }
}
