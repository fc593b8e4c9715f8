package io.pigeon.api.scaler;

import io.grpc.netty.NettyServerBuilder;
import io.pigeon.scaling.ScalerSettings;
import io.quarkus.arc.Unremovable;
import io.quarkus.grpc.api.ServerBuilderCustomizer;
import io.quarkus.grpc.runtime.config.GrpcServerConfiguration;
import io.vertx.grpc.VertxServerBuilder;
import jakarta.inject.Singleton;
import java.util.concurrent.TimeUnit;
import org.jboss.logging.Logger;

/**
 * What the gRPC server's port may be made to hold (docs/operations.md, The gRPC port): at most
 * {@code pigeon.scaler.max-connections} connections ({@link ScalerConnections}), each closed when it opens no call within
 * {@code pigeon.scaler.first-call-timeout} or has none in flight for {@code pigeon.scaler.idle-timeout}; at most
 * {@code pigeon.scaler.max-calls-per-connection} calls on each, each holding at most one message in progress
 * ({@code quarkus.grpc.server.max-inbound-message-size}) until {@code pigeon.scaler.request-timeout}
 * ({@link ScalerRequestDeadline}); and {@code pigeon.scaler.flow-control-window} bytes unread per connection. Measured
 * before these bounds: 6 connections of 800 unfinished calls each took the resident memory from 215 to 755 MB and the
 * direct memory to its limit.
 *
 * <p>The type argument is what makes Quarkus call it: Quarkus selects {@code ServerBuilderCustomizer<?>} beans, and a
 * bean of the raw type is not one (CDI's rules for raw types), so a raw customizer is silently never called.
 */
@Singleton
@Unremovable
public class ScalerServerOptions implements ServerBuilderCustomizer<VertxServerBuilder> {

    private static final Logger LOG = Logger.getLogger(ScalerServerOptions.class);

    private final ScalerSettings config;
    private final ScalerConnections connections;

    public ScalerServerOptions(ScalerSettings scalerSettings, ScalerConnections connections) {
        this.config = scalerSettings;
        this.connections = connections;
    }

    @Override
    public void customize(GrpcServerConfiguration server, VertxServerBuilder separate) {
        // Quarkus sets its own handshake timeout after this only when quarkus.grpc.server.handshake-timeout is given.
        separate.handshakeTimeout(config.firstCallTimeout().toMillis(), TimeUnit.MILLISECONDS);
        NettyServerBuilder netty = separate.nettyBuilder();
        netty.maxConnectionIdle(config.idleTimeout().toMillis(), TimeUnit.MILLISECONDS)
                .maxConcurrentCallsPerConnection(config.maxCallsPerConnection())
                .flowControlWindow(config.flowControlWindow());
        if (tls(server)) {
            // Vert.x installs its TLS negotiator when the server starts, in place of any given here.
            LOG.warn("The gRPC port serves TLS: pigeon.scaler.max-connections, pigeon.scaler.first-call-timeout and"
                    + " the reset of calls ended for pigeon.scaler.request-timeout do not apply to it (the handshake,"
                    + " idle, call, request and window bounds do)");
        } else {
            netty.protocolNegotiator(connections.negotiator());
        }
    }

    private static boolean tls(GrpcServerConfiguration server) {
        return server.ssl().certificate().isPresent()
                || server.ssl().keyStore().isPresent()
                || server.transportSecurity().certificate().isPresent();
    }
}
