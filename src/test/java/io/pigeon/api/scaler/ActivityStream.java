package io.pigeon.api.scaler;

import io.grpc.Context;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;
import io.pigeon.api.scaler.externalscaler.ExternalScalerGrpc;
import io.pigeon.api.scaler.externalscaler.IsActiveResponse;
import io.pigeon.api.scaler.externalscaler.ScaledObjectRef;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A {@code StreamIsActive} stream as KEDA holds one: each report with the moment it arrived, and how the stream ended.
 */
final class ActivityStream implements AutoCloseable {

    /** A report: active or not, and {@link System#nanoTime} when it arrived. */
    record Report(boolean active, long at) {}

    private final ManagedChannel channel;
    private final Context.CancellableContext call = Context.current().withCancellation();
    private final BlockingQueue<Report> reports = new LinkedBlockingQueue<>();
    private volatile Status ended;

    ActivityStream(String host, int port, ScaledObjectRef trigger) {
        channel = NettyChannelBuilder.forAddress(host, port).usePlaintext().build();
        ExternalScalerGrpc.ExternalScalerStub stub = ExternalScalerGrpc.newStub(channel);
        call.run(() -> stub.streamIsActive(trigger, new StreamObserver<>() {
            @Override
            public void onNext(IsActiveResponse value) {
                reports.add(new Report(value.getResult(), System.nanoTime()));
            }

            @Override
            public void onError(Throwable t) {
                ended = Status.fromThrowable(t);
            }

            @Override
            public void onCompleted() {
                ended = Status.OK;
            }
        }));
    }

    /** The next report, or null when none comes within {@code millis}. */
    Report next(long millis) throws InterruptedException {
        return reports.poll(millis, TimeUnit.MILLISECONDS);
    }

    /** How the stream ended (null while it is open). */
    Status ended() {
        return ended;
    }

    @Override
    public void close() throws InterruptedException {
        call.cancel(null);
        channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
}
