package io.pigeon.api;

import io.quarkus.websockets.next.WebSocketException;
import io.vertx.core.http.HttpClosedException;
import io.vertx.core.net.impl.ConnectionBase;
import java.nio.channels.ClosedChannelException;

/**
 * Whether a failure is the connection having closed under a read or a write, however Vert.x, Netty or WebSockets Next
 * report it: the client went away (or a deadline cut it), which is no fault of Pigeon's and never worth more than a
 * DEBUG line. Shared by the HTTP failure handler ({@link AbortedRequests}) and the websocket transport's writes.
 */
public final class ClosedConnections {

    private ClosedConnections() {}

    public static boolean closedUnder(Throwable failure) {
        return failure instanceof HttpClosedException
                || failure instanceof ClosedChannelException
                || failure == ConnectionBase.CLOSED_EXCEPTION
                || failure instanceof WebSocketException
                        && failure.getCause() != null
                        && closedUnder(failure.getCause());
    }
}
