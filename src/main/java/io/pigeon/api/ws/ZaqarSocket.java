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
 * Zaqar's websocket at {@code ws://host:port/}, the URL python-zaqarclient is usually given (it connects to the
 * URL as given). A plain GET of {@code /} still reaches the versions document. Frames are handed to
 * {@link SocketTransport} as they come (CONCURRENT: the transport itself answers them one at a time and in order,
 * and bounds how many may wait); every callback returns at once on the event loop.
 */
@WebSocket(path = "/", inboundProcessingMode = InboundProcessingMode.CONCURRENT)
public class ZaqarSocket {

    private final SocketTransport transport;

    ZaqarSocket(SocketTransport transport) {
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
