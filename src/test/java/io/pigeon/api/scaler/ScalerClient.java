package io.pigeon.api.scaler;

import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import io.pigeon.api.scaler.externalscaler.ExternalScalerGrpc;
import io.pigeon.api.scaler.externalscaler.GetMetricSpecResponse;
import io.pigeon.api.scaler.externalscaler.GetMetricsRequest;
import io.pigeon.api.scaler.externalscaler.IsActiveResponse;
import io.pigeon.api.scaler.externalscaler.ScaledObjectRef;
import io.quarkus.arc.Arc;
import io.quarkus.grpc.runtime.GrpcServer;
import io.quarkus.value.registry.ValueRegistry;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A client of Pigeon's external scaler as KEDA is one: plain grpc-java over the generated stubs of KEDA's proto, to a
 * running Pigeon's gRPC port.
 */
final class ScalerClient implements AutoCloseable {

    private final ManagedChannel channel;
    private final String host;
    private final int port;
    final ExternalScalerGrpc.ExternalScalerBlockingStub blocking;

    ScalerClient(String host, int port) {
        this.host = host;
        this.port = port;
        channel = NettyChannelBuilder.forAddress(host, port).usePlaintext().build();
        blocking = ExternalScalerGrpc.newBlockingStub(channel);
    }

    /** A client of the Pigeon this test runs (its gRPC server's port, chosen at start). */
    static ScalerClient ofTestedPigeon() {
        return new ScalerClient("localhost", testedPort());
    }

    /** The gRPC port of the Pigeon this test runs. */
    static int testedPort() {
        ValueRegistry registry = Arc.container().instance(ValueRegistry.class).get();
        return registry.get(GrpcServer.GRPC_PORT);
    }

    /** A v2 post of {@code count} messages (bodies 0, 1, ...), for the tests that fill a queue a trigger reads. */
    static String messages(int count) {
        StringBuilder messages = new StringBuilder("{\"messages\": [");
        for (int i = 0; i < count; i++) {
            messages.append(i == 0 ? "" : ",")
                    .append("{\"ttl\": 300, \"body\": ")
                    .append(i)
                    .append('}');
        }
        return messages.append("]}").toString();
    }

    /** A trigger's metadata: {@code keysAndValues} in pairs. */
    static ScaledObjectRef trigger(String... keysAndValues) {
        Map<String, String> metadata = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            metadata.put(keysAndValues[i], keysAndValues[i + 1]);
        }
        return ScaledObjectRef.newBuilder()
                .setName("consumer")
                .setNamespace("default")
                .putAllScalerMetadata(metadata)
                .build();
    }

    boolean isActive(ScaledObjectRef trigger) {
        return blocking.isActive(trigger).getResult();
    }

    GetMetricSpecResponse spec(ScaledObjectRef trigger) {
        return blocking.getMetricSpec(trigger);
    }

    double metric(ScaledObjectRef trigger, String name) {
        return blocking.getMetrics(GetMetricsRequest.newBuilder()
                        .setScaledObjectRef(trigger)
                        .setMetricName(name)
                        .build())
                .getMetricValues(0)
                .getMetricValueFloat();
    }

    Iterator<IsActiveResponse> stream(ScaledObjectRef trigger) {
        return blocking.streamIsActive(trigger);
    }

    /** A stream held open, its reports collected as they come (close it). */
    ActivityStream open(ScaledObjectRef trigger) {
        return new ActivityStream(host, port, trigger);
    }

    @Override
    public void close() throws InterruptedException {
        channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
}
