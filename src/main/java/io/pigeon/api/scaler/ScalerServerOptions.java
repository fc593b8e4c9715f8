package io.pigeon.api.scaler;

import io.grpc.ServerBuilder;
import io.pigeon.config.PigeonConfig;
import io.quarkus.arc.Unremovable;
import io.quarkus.grpc.api.ServerBuilderCustomizer;
import io.quarkus.grpc.runtime.config.GrpcServerConfiguration;
import io.vertx.grpc.VertxServerBuilder;
import jakarta.inject.Singleton;
import java.util.concurrent.TimeUnit;

/**
 * The gRPC server's connections: one with no call in flight for {@code pigeon.scaler.idle-timeout} is closed, so that
 * connections nobody uses are not held (KEDA's operator keeps one connection, busy with its streams and polls).
 */
@Singleton
@Unremovable
@SuppressWarnings({"rawtypes", "unchecked"}) // Quarkus hands every customizer the builder of the server it builds
public class ScalerServerOptions implements ServerBuilderCustomizer {

    private final PigeonConfig.Scaler config;

    public ScalerServerOptions(PigeonConfig config) {
        this.config = config.scaler();
    }

    @Override
    public void customize(GrpcServerConfiguration server, ServerBuilder builder) {
        if (builder instanceof VertxServerBuilder separate) {
            separate.nettyBuilder().maxConnectionIdle(config.idleTimeout().toMillis(), TimeUnit.MILLISECONDS);
        }
    }
}
