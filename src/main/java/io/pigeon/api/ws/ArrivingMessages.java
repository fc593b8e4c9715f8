package io.pigeon.api.ws;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.HttpRequestDecoder;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.ContinuationWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketFrameDecoder;
import io.netty.util.concurrent.ScheduledFuture;
import io.pigeon.config.PigeonConfig;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.net.impl.ConnectionBase;
import jakarta.enterprise.context.ApplicationScoped;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.jboss.logging.Logger;

/**
 * Counts the bytes of websocket messages that have begun to arrive and not yet ended, per socket and over the replica.
 *
 * <p>Pigeon's other bounds of bytes ({@code max-held-bytes}) count a message once Quarkus hands it over whole. Before
 * that, Netty keeps an unfinished frame in its decoder's buffer (up to the frame bound) and Vert.x keeps the finished
 * fragments of an unfinished message (up to the message bound), for every socket: 2,000 sockets that each sent most of
 * a message and then only answered pings held 1.5 GB of heap. Neither Quarkus nor Vert.x exposes those buffers, so a
 * handler is put in the connection's pipeline when the upgrade is permitted: ahead of the decoder it counts the bytes
 * that come in, behind it the frames that come out (with their framing, which Netty requires to be minimal). The bytes
 * in between are the decoder's; the payloads of a message's fragments before its final one are Vert.x's.
 *
 * <p>They are counted twice over, as the buffers collecting them may have grown to twice their content, against
 * {@code pigeon.websocket.max-arriving-bytes} for the replica: a socket whose bytes would pass it is closed (1013). A
 * socket holding part of a message must finish one within {@code pigeon.websocket.message-arrival-timeout}, or it is
 * closed (1008): a client that trickles a message cannot keep the room it holds.
 */
@ApplicationScoped
public class ArrivingMessages {

    private static final Logger LOG = Logger.getLogger(ArrivingMessages.class);

    /** Arriving bytes are counted twice over: the buffers that collect them grow by doubling. */
    static final int HELD_PER_ARRIVING_BYTE = 2;

    private final AtomicLong counted = new AtomicLong();
    private final long maxArrivingBytes;
    private final long arrivalTimeoutMillis;

    ArrivingMessages(PigeonConfig config) {
        this.maxArrivingBytes = config.websocket().maxArrivingBytes();
        this.arrivalTimeoutMillis = config.websocket().messageArrivalTimeout().toMillis();
    }

    /**
     * Puts the meter in the pipeline of {@code request}'s connection, ahead of its HTTP decoder (which the websocket
     * decoder replaces when the upgrade is answered). False where the connection is not one Pigeon can meter: the
     * upgrade is then refused rather than served without the bound.
     */
    boolean meter(HttpServerRequest request) {
        if (!(request.connection() instanceof ConnectionBase connection)) {
            LOG.errorf("A websocket upgrade came on a connection Pigeon cannot meter: %s", request.connection());
            return false;
        }
        ChannelPipeline pipeline = connection.channel().pipeline();
        ChannelHandlerContext decoder = pipeline.context(HttpRequestDecoder.class);
        if (decoder == null) {
            decoder = pipeline.context(HttpServerCodec.class);
        }
        if (decoder == null) {
            LOG.errorf("A websocket upgrade came on a connection without an HTTP/1 decoder: %s", pipeline.names());
            return false;
        }
        if (pipeline.get(Incoming.class) == null) {
            pipeline.addBefore(decoder.name(), null, new Incoming());
        }
        return true;
    }

    /** Counted bytes of messages arriving on this replica now (for tests). */
    long counted() {
        return counted.get();
    }

    private boolean count(long bytes) {
        if (counted.addAndGet(bytes) > maxArrivingBytes) {
            counted.addAndGet(-bytes);
            return false;
        }
        return true;
    }

    private void uncount(long bytes) {
        counted.addAndGet(-bytes);
    }

    /**
     * Ahead of the decoder: counts the bytes that come in, once the connection has become a websocket (until then they
     * are HTTP), and puts {@link Decoded} behind the websocket decoder. Runs on the connection's event loop only.
     */
    private final class Incoming extends ChannelInboundHandlerAdapter {

        /** Bytes that came in and have not yet come out as a frame, plus the held fragments of a message. */
        private long held;
        /** What {@link #held} counts against the replica's bound. */
        private long countedHere;

        private boolean websocket;
        private boolean refused;
        private ScheduledFuture<?> deadline;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (!(msg instanceof ByteBuf bytes)) {
                ctx.fireChannelRead(msg);
                return;
            }
            if (refused) {
                bytes.release();
                return;
            }
            if (!websocket && !becameWebsocket(ctx)) {
                ctx.fireChannelRead(msg);
                return;
            }
            if (!change(ctx, bytes.readableBytes())) {
                bytes.release();
                return;
            }
            ctx.fireChannelRead(msg);
        }

        private boolean becameWebsocket(ChannelHandlerContext ctx) {
            ChannelHandlerContext decoder = ctx.pipeline().context(WebSocketFrameDecoder.class);
            if (decoder == null) {
                return false;
            }
            ctx.pipeline().addAfter(decoder.name(), null, new Decoded(this, ctx));
            websocket = true;
            return true;
        }

        /**
         * Adds {@code bytes} (negative when they leave) to what this socket holds; false, with the socket closed, when
         * the replica has no room for them.
         */
        boolean change(ChannelHandlerContext ctx, long bytes) {
            long before = held;
            held = Math.max(0, held + bytes);
            long wanted = HELD_PER_ARRIVING_BYTE * held - countedHere;
            if (wanted > 0 && !count(wanted)) {
                refuse(
                        ctx,
                        SocketTransport.TRY_AGAIN_LATER,
                        "The server holds too many messages still arriving (" + maxArrivingBytes
                                + " bytes); try again later.");
                return false;
            }
            if (wanted < 0) {
                uncount(-wanted);
            }
            countedHere += wanted;
            if (held == 0) {
                cancelDeadline();
            } else if (before == 0) {
                startDeadline(ctx);
            }
            return true;
        }

        /** A whole message came out of the decoders: the next one has the whole timeout again. */
        void messageEnded(ChannelHandlerContext ctx) {
            cancelDeadline();
            if (held > 0) {
                startDeadline(ctx);
            }
        }

        private void startDeadline(ChannelHandlerContext ctx) {
            cancelDeadline();
            deadline = ctx.executor()
                    .schedule(
                            () -> refuse(
                                    ctx,
                                    SocketTransport.POLICY_VIOLATION,
                                    "A message must arrive within " + arrivalTimeoutMillis + " ms."),
                            arrivalTimeoutMillis,
                            TimeUnit.MILLISECONDS);
        }

        private void cancelDeadline() {
            if (deadline != null) {
                deadline.cancel(false);
                deadline = null;
            }
        }

        /**
         * Closes the socket with a close frame written here, below Vert.x (which knows nothing of this bound), and
         * drops whatever else comes in.
         */
        private void refuse(ChannelHandlerContext ctx, int code, String reason) {
            if (refused) {
                return;
            }
            refused = true;
            forget();
            ctx.writeAndFlush(closeFrame(code, reason)).addListener(ChannelFutureListener.CLOSE);
        }

        private void forget() {
            cancelDeadline();
            uncount(countedHere);
            countedHere = 0;
            held = 0;
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            forget();
            ctx.fireChannelInactive();
        }

        @Override
        public void handlerRemoved(ChannelHandlerContext ctx) {
            forget();
        }
    }

    /**
     * Behind the websocket decoder: each frame it gives out leaves the decoder's buffer, framing included; a fragment
     * that does not end its message stays held (by Vert.x) until the fragment that does.
     */
    private static final class Decoded extends ChannelInboundHandlerAdapter {

        private final Incoming incoming;
        private final ChannelHandlerContext incomingContext;
        private long fragments;

        Decoded(Incoming incoming, ChannelHandlerContext incomingContext) {
            this.incoming = incoming;
            this.incomingContext = incomingContext;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof WebSocketFrame frame) {
                int payload = frame.content().readableBytes();
                long left = framed(payload);
                boolean data = frame instanceof TextWebSocketFrame
                        || frame instanceof BinaryWebSocketFrame
                        || frame instanceof ContinuationWebSocketFrame;
                if (data && !frame.isFinalFragment()) {
                    fragments += payload;
                    left -= payload;
                } else if (data) {
                    left += fragments;
                    fragments = 0;
                }
                incoming.change(incomingContext, -left);
                if (data && frame.isFinalFragment()) {
                    incoming.messageEnded(incomingContext);
                }
            }
            ctx.fireChannelRead(msg);
        }

        /** A client frame's size on the wire: header, extended length (minimal, as Netty requires), mask, payload. */
        private static long framed(int payload) {
            int length = payload < 126 ? 0 : payload < 65536 ? 2 : 8;
            return 2 + length + 4 + (long) payload;
        }
    }

    /** A close frame as a server sends it (unmasked), with a reason cut to fit a control frame. */
    static ByteBuf closeFrame(int code, String reason) {
        byte[] text = reason.getBytes(StandardCharsets.UTF_8);
        int length = Math.min(text.length, 123);
        ByteBuf frame = Unpooled.buffer(4 + length);
        frame.writeByte(0x88);
        frame.writeByte(2 + length);
        frame.writeShort(code);
        frame.writeBytes(text, 0, length);
        return frame;
    }
}
