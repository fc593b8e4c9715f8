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
import io.pigeon.scaling.ScalerSettings;
import jakarta.inject.Singleton;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jboss.logging.Logger;

/**
 * The gRPC port's connections, bounded as the HTTP port's are: at most {@code pigeon.scaler.max-connections} open at
 * once, and at most {@code pigeon.scaler.max-connections-per-address} of them from one remote address (one more is
 * closed as soon as it is accepted), and one that has opened no call within {@code pigeon.scaler.first-call-timeout}
 * of being accepted is closed. KEDA's operator needs one connection (its metrics server another); without these
 * bounds, clients that opened connections and sent nothing took every file descriptor of the process (20,000), and the
 * HTTP port and the health checks with them; and without the share per address, 128 silent connections from one
 * address (20 new a second) kept KEDA out of the 8 places.
 *
 * <p>grpc-java's server offers no bound on connections, so this wraps its plaintext protocol negotiator, whose handler
 * grpc-java adds to each connection when it is accepted, before anything is read from it. It is grpc-java's internal
 * but public interface; it needs no reflection, so it holds in a native image too.
 */
@Singleton
public class ScalerConnections {

    private static final Logger LOG = Logger.getLogger(ScalerConnections.class);

    /** The bounds of {@code pigeon.scaler.first-call-timeout}: longer than a handshake takes, short enough to matter. */
    static final Duration MIN_FIRST_CALL_TIMEOUT = Duration.ofMillis(100);

    static final Duration MAX_FIRST_CALL_TIMEOUT = Duration.ofSeconds(60);

    private final int maxConnections;
    private final int maxPerAddress;
    private final Duration firstCallTimeout;
    private final AtomicInteger open = new AtomicInteger();
    private final Map<InetAddress, Integer> openPerAddress = new ConcurrentHashMap<>();

    public ScalerConnections(ScalerSettings scalerSettings) {
        this.maxConnections = scalerSettings.maxConnections();
        this.maxPerAddress = scalerSettings.maxConnectionsPerAddress();
        this.firstCallTimeout = scalerSettings.firstCallTimeout();
        check(scalerSettings);
    }

    /**
     * Refuses the settings of the port's connections that no constraint can state: the share of one address beyond
     * the whole, and a first-call deadline out of its bounds. Called at start ({@link ScalerPortStarted}) too, since
     * Quarkus reports a failure while it builds the gRPC server only as a server that did not start.
     */
    static void check(ScalerSettings config) {
        if (config.maxConnectionsPerAddress() > config.maxConnections()) {
            throw new IllegalStateException("pigeon.scaler.max-connections-per-address ("
                    + config.maxConnectionsPerAddress() + ") must be at most pigeon.scaler.max-connections ("
                    + config.maxConnections() + ")");
        }
        Duration firstCall = config.firstCallTimeout();
        if (firstCall.compareTo(MIN_FIRST_CALL_TIMEOUT) < 0 || firstCall.compareTo(MAX_FIRST_CALL_TIMEOUT) > 0) {
            throw new IllegalStateException(
                    "pigeon.scaler.first-call-timeout (" + firstCall + ") must be from 100 ms to 60 s");
        }
    }

    /**
     * Counts a connection from {@code address} in; false, counting nothing, when its address holds its share already.
     */
    private boolean admitFrom(InetAddress address) {
        boolean[] admitted = new boolean[1];
        openPerAddress.compute(address, (from, held) -> {
            int now = held == null ? 0 : held;
            if (now >= maxPerAddress) {
                return held;
            }
            admitted[0] = true;
            return now + 1;
        });
        return admitted[0];
    }

    private void closedFrom(InetAddress address) {
        openPerAddress.computeIfPresent(address, (from, held) -> held <= 1 ? null : held - 1);
    }

    /** Where a connection comes from; null when its channel does not say (not a TCP connection). */
    private static InetAddress addressOf(Channel channel) {
        return channel.remoteAddress() instanceof InetSocketAddress inet ? inet.getAddress() : null;
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
     * Counts the connection in when it is added to its channel and out when the channel closes; past either bound (all
     * connections, or its address's share), closes it at once. Then hands the channel to grpc-java's own negotiation
     * handler.
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
            InetAddress from = addressOf(ctx.channel());
            if (from != null && !admitFrom(from)) {
                open.decrementAndGet();
                LOG.debugf(
                        "gRPC connection from %s closed: pigeon.scaler.max-connections-per-address (%d) are open from"
                                + " its address",
                        ctx.channel().remoteAddress(), maxPerAddress);
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
                if (from != null) {
                    closedFrom(from);
                }
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
