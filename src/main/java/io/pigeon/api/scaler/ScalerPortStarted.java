package io.pigeon.api.scaler;

import io.pigeon.scaling.ScalerSettings;
import io.quarkus.grpc.runtime.GrpcServer;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.value.registry.ValueRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Stops the start when the gRPC port (the KEDA external scaler) could not be bound. Quarkus logs one ERROR when its
 * gRPC server fails to start and goes on: Pigeon then ran with readiness DOWN for ever (a second instance on one host,
 * whose 9010 the first held, looked alive and never served). Quarkus starts the gRPC server before it fires
 * {@link StartupEvent} and registers the port it listens on only once it does, so a port missing then is a port that
 * was not bound.
 */
@ApplicationScoped
public class ScalerPortStarted {

    private final ValueRegistry registry;
    private final ScalerSettings scalerSettings;
    private final String host;
    private final int port;

    public ScalerPortStarted(
            ValueRegistry registry,
            ScalerSettings scalerSettings,
            @ConfigProperty(name = "quarkus.grpc.server.host") String host,
            @ConfigProperty(name = "quarkus.grpc.server.port") int port) {
        this.registry = registry;
        this.scalerSettings = scalerSettings;
        this.host = host;
        this.port = port;
    }

    void started(@Observes StartupEvent started) {
        // A bad setting of the port's connections also keeps the server from starting: named first, as the cause.
        ScalerConnections.check(scalerSettings);
        if (!registry.containsKey(GrpcServer.GRPC_PORT)) {
            throw new IllegalStateException("The gRPC port could not be bound: quarkus.grpc.server.port (" + port
                    + ") on quarkus.grpc.server.host (" + host + ") is taken or not allowed; set another port"
                    + " (QUARKUS_GRPC_SERVER_PORT), see the ERROR above for the cause");
        }
    }
}
