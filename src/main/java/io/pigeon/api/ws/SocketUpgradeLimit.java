package io.pigeon.api.ws;

import io.pigeon.api.AddressShares;
import io.quarkus.websockets.next.HttpUpgradeCheck;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Refuses a websocket upgrade with 503 while the replica holds {@code pigeon.websocket.max-sockets} sockets acting for
 * someone, or the client's source holds {@code pigeon.websocket.max-sockets-per-address}, or the replica is shutting
 * down; a permitted upgrade has its arriving messages metered ({@link ArrivingMessages}) and keeps the way to
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
        if (transport.full()) {
            return CheckResult.rejectUpgrade(503);
        }
        AddressShares.Share share = transport.share(context.httpRequest());
        if (share == null) {
            return CheckResult.rejectUpgrade(503);
        }
        if (!arriving.meter(context.httpRequest())) {
            share.release();
            return CheckResult.rejectUpgrade(503);
        }
        context.userData().put(UpgradedRequests.END, UpgradedRequests.ender(context.httpRequest()));
        return CheckResult.permitUpgrade();
    }
}
