package io.pigeon.api.ws;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.Startup;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * {@code pigeon_websocket_sockets}: the WebSocket sessions open on this replica, to read beside
 * {@code pigeon.websocket.max-sockets} (a replica at its bound refuses upgrades with 503) on the dashboard.
 */
@Startup
@ApplicationScoped
class SocketsGauge {

    SocketsGauge(SocketTransport transport, MeterRegistry registry) {
        Gauge.builder("pigeon.websocket.sockets", transport, SocketTransport::openSockets)
                .description("WebSocket sessions open on this replica")
                .register(registry);
    }
}
