package io.pigeon.api.ws;

import io.quarkus.websockets.next.HttpUpgradeCheck;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Refuses a websocket upgrade with 503 while the replica holds {@code pigeon.websocket.max-sockets} sockets or is
 * shutting down; a permitted upgrade has its arriving messages metered ({@link ArrivingMessages}) and keeps the way to
 * end its HTTP request ({@link UpgradedRequests}).
 */
@ApplicationScoped
public class SocketUpgradeLimit implements HttpUpgradeCheck {

    private final SocketTransport transport;
    private final ArrivingMessages arriving;

    SocketUpgradeLimit(SocketTransport transport, ArrivingMessages arriving) {
        this.transport = transport;
        this.arriving = arriving;
    }

    @Override
    public Uni<CheckResult> perform(HttpUpgradeContext context) {
        if (transport.full() || !arriving.meter(context.httpRequest())) {
            return CheckResult.rejectUpgrade(503);
        }
        context.userData().put(UpgradedRequests.END, UpgradedRequests.ender(context.httpRequest()));
        return CheckResult.permitUpgrade();
    }
}
