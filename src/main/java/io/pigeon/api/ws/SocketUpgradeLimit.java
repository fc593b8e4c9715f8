package io.pigeon.api.ws;

import io.quarkus.websockets.next.HttpUpgradeCheck;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

/** Refuses a websocket upgrade with 503 while the replica holds {@code pigeon.websocket.max-sockets} sockets. */
@ApplicationScoped
public class SocketUpgradeLimit implements HttpUpgradeCheck {

    private final SocketTransport transport;

    SocketUpgradeLimit(SocketTransport transport) {
        this.transport = transport;
    }

    @Override
    public Uni<CheckResult> perform(HttpUpgradeContext context) {
        return transport.full() ? CheckResult.rejectUpgrade(503) : CheckResult.permitUpgrade();
    }
}
