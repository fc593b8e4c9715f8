package io.pigeon.api.scaler;

import io.grpc.netty.GrpcHttp2ConnectionHandler;
import io.grpc.netty.InternalProtocolNegotiator;
import io.grpc.netty.InternalProtocolNegotiators;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http2.Http2ConnectionAdapter;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Stream;
import io.netty.util.AsciiString;
import io.netty.util.concurrent.ScheduledFuture;
import io.pigeon.config.PigeonConfig;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jboss.logging.Logger;

/**
 * The gRPC port's connections, bounded as the HTTP port's are: at most {@code pigeon.scaler.max-connections} open at
 * once (one more is closed as soon as it is accepted), and one that has opened no call within
 * {@code pigeon.scaler.first-call-timeout} of being accepted is closed. KEDA's operator needs one connection (its
 * metrics server another); without these bounds, clients that opened connections and sent nothing took every file
 * descriptor of the process (20,000), and the HTTP port and the health checks with them.
 *
 * <p>grpc-java's server offers no bound on connections, so this wraps its plaintext protocol negotiator, whose handler
 * grpc-java adds to each connection when it is accepted, before anything is read from it. It is grpc-java's internal
 * but public interface; it needs no reflection, so it holds in a native image too.
 */
@Singleton
public class ScalerConnections {

    private static final Logger LOG = Logger.getLogger(ScalerConnections.class);

    private final int maxConnections;
    private final Duration firstCallTimeout;
    private final AtomicInteger open = new AtomicInteger();

    public ScalerConnections(PigeonConfig config) {
        this.maxConnections = config.scaler().maxConnections();
        this.firstCallTimeout = config.scaler().firstCallTimeout();
    }

    /** Connections open now on the gRPC port of this replica. */
    public int open() {
        return open.get();
    }

    /** The negotiator that grpc-java's server uses for each accepted plaintext connection. */
    InternalProtocolNegotiator.ProtocolNegotiator negotiator() {
        return new Bounded(InternalProtocolNegotiators.serverPlaintext());
    }

    private final class Bounded implements InternalProtocolNegotiator.ProtocolNegotiator {

        private final InternalProtocolNegotiator.ProtocolNegotiator plaintext;

        Bounded(InternalProtocolNegotiator.ProtocolNegotiator plaintext) {
            this.plaintext = plaintext;
        }

        @Override
        public AsciiString scheme() {
            return plaintext.scheme();
        }

        @Override
        public ChannelHandler newHandler(GrpcHttp2ConnectionHandler grpcHandler) {
            return new Admission(grpcHandler, plaintext.newHandler(grpcHandler));
        }

        @Override
        public void close() {
            plaintext.close();
        }
    }

    /**
     * Counts the connection in when it is added to its channel and out when the channel closes; past the bound, closes
     * it at once. Then hands the channel to grpc-java's own negotiation handler.
     */
    private final class Admission extends ChannelInboundHandlerAdapter {

        private final GrpcHttp2ConnectionHandler grpcHandler;
        private final ChannelHandler negotiation;

        Admission(GrpcHttp2ConnectionHandler grpcHandler, ChannelHandler negotiation) {
            this.grpcHandler = grpcHandler;
            this.negotiation = negotiation;
        }

        @Override
        public void handlerAdded(ChannelHandlerContext ctx) {
            if (open.incrementAndGet() > maxConnections) {
                open.decrementAndGet();
                LOG.debugf(
                        "gRPC connection from %s closed: pigeon.scaler.max-connections (%d) are open",
                        ctx.channel().remoteAddress(), maxConnections);
                ctx.close();
                return;
            }
            // The first call cancels the timer; a connection that opens none in time is closed, handshake or not.
            ScheduledFuture<?> firstCall = ctx.executor()
                    .schedule(
                            () -> {
                                LOG.debugf(
                                        "gRPC connection from %s closed: no call within pigeon.scaler.first-call-timeout",
                                        ctx.channel().remoteAddress());
                                ctx.channel().close();
                            },
                            firstCallTimeout.toMillis(),
                            TimeUnit.MILLISECONDS);
            Channel channel = ctx.channel();
            grpcHandler.connection().addListener(new Http2ConnectionAdapter() {
                @Override
                public void onStreamAdded(Http2Stream stream) {
                    firstCall.cancel(false);
                }

                @Override
                public void onStreamHalfClosed(Http2Stream stream) {
                    if (stream.state() == Http2Stream.State.HALF_CLOSED_LOCAL) {
                        channel.eventLoop().execute(() -> resetAnswered(channel, stream));
                    }
                }
            });
            ctx.channel().closeFuture().addListener(closed -> {
                firstCall.cancel(false);
                open.decrementAndGet();
            });
            ctx.pipeline().replace(this, null, negotiation);
        }

        /**
         * Resets a stream the server has answered (its status sent) while the client's side is still open, as the gRPC
         * protocol asks of a server: a call ended for {@code pigeon.scaler.request-timeout} then frees its place among
         * the connection's {@code pigeon.scaler.max-calls-per-connection} even if the client never ends its side. A
         * well-behaved client has already ended its side of every call the server answers (KEDA's calls send one
         * message and end).
         */
        private void resetAnswered(Channel channel, Http2Stream stream) {
            ChannelHandlerContext grpc = channel.pipeline().context(grpcHandler);
            if (grpc != null && stream.state() == Http2Stream.State.HALF_CLOSED_LOCAL) {
                grpcHandler.resetStream(grpc, stream.id(), Http2Error.NO_ERROR.code(), grpc.newPromise());
                grpc.flush();
            }
        }
    }
}
