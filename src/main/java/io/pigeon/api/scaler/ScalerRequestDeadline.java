package io.pigeon.api.scaler;

import io.grpc.ForwardingServerCallListener.SimpleForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.pigeon.scaling.ScalerSettings;
import io.quarkus.grpc.GlobalInterceptor;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Ends a call whose request has not arrived whole within {@code pigeon.scaler.request-timeout}: DEADLINE_EXCEEDED,
 * which frees the part of the message it held. A KEDA request is one small message sent at once; without this
 * deadline, calls announcing 64 KiB and sending all but its last bytes held their buffers until the client left (6
 * connections of 800 such calls exhausted the direct memory).
 *
 * <p>The timer runs on the call's own Vert.x context, as its other events do, so it never races them.
 */
@GlobalInterceptor
@ApplicationScoped
public class ScalerRequestDeadline implements ServerInterceptor {

    private final long timeoutMillis;

    public ScalerRequestDeadline(ScalerSettings scalerSettings) {
        this.timeoutMillis = scalerSettings.requestTimeout().toMillis();
    }

    @Override
    public <Q, A> ServerCall.Listener<Q> interceptCall(
            ServerCall<Q, A> call, Metadata headers, ServerCallHandler<Q, A> next) {
        ServerCall.Listener<Q> listener = next.startCall(call, headers);
        Context context = Vertx.currentContext();
        if (context == null) {
            return listener;
        }
        Vertx vertx = context.owner();
        long timer = vertx.setTimer(timeoutMillis, id -> {
            if (!call.isCancelled()) {
                call.close(
                        Status.DEADLINE_EXCEEDED.withDescription("The request did not arrive whole within "
                                + "pigeon.scaler.request-timeout (" + timeoutMillis + " ms)."),
                        new Metadata());
            }
        });
        return new SimpleForwardingServerCallListener<>(listener) {
            @Override
            public void onHalfClose() {
                vertx.cancelTimer(timer);
                super.onHalfClose();
            }

            @Override
            public void onCancel() {
                vertx.cancelTimer(timer);
                super.onCancel();
            }

            @Override
            public void onComplete() {
                vertx.cancelTimer(timer);
                super.onComplete();
            }
        };
    }
}
