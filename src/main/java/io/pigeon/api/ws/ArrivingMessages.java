package io.pigeon.api.ws;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.http.HttpRequestDecoder;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.ContinuationWebSocketFrame;
import io.netty.handler.codec.http.websocketx.PingWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketFrameDecoder;
import io.netty.util.concurrent.ScheduledFuture;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.net.impl.ConnectionBase;
import jakarta.enterprise.context.ApplicationScoped;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
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
 * <p>They are counted as the buffers holding them lie, against {@code pigeon.websocket.max-arriving-bytes} for the
 * replica: the decoder's buffer by its capacity while any byte is left in it (a buffer grown for a big frame is kept
 * whole for a single byte of the next), Vert.x's fragments twice over (its buffer grows by doubling). A socket whose
 * bytes would pass the bound makes room by closing (1013) the socket whose unfinished message began the longest ago,
 * when that is another's; it is closed itself when its own began first. Whole messages arrive in moments while a
 * client that holds messages back holds them for seconds: the oldest is the one to go, and one client holding back
 * many messages cannot shut every other client out (an outside attack saw 52 sockets do so when the socket asking
 * for more was the one closed). A socket holding part of a message must finish one within
 * {@code pigeon.websocket.message-arrival-timeout}, or it is closed (1008): a client that trickles a message cannot
 * keep the room it holds.
 */
@ApplicationScoped
public class ArrivingMessages {

    private static final Logger LOG = Logger.getLogger(ArrivingMessages.class);

    /** Arriving bytes are counted twice over: the buffers that collect them grow by doubling. */
    static final int HELD_PER_ARRIVING_BYTE = 2;

    private final AtomicLong counted = new AtomicLong();
    /** The connections of the replica's sockets by the client's address, as WebSockets Next names it: to abort. */
    private final Map<String, Channel> channels = new ConcurrentHashMap<>();
    /** The sockets holding part of a message now: those that may be closed to make room. */
    private final Set<Incoming> holders = ConcurrentHashMap.newKeySet();

    private final long maxArrivingBytes;
    private final long arrivalTimeoutMillis;

    ArrivingMessages(WebsocketSettings websocketSettings) {
        this.maxArrivingBytes = websocketSettings.maxArrivingBytes();
        this.arrivalTimeoutMillis = websocketSettings.messageArrivalTimeout().toMillis();
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
            // Spelled as WebSockets Next spells the socket's remote address, taken from the connection itself (not
            // from forwarded headers): where the two differ, nothing is found to abort, and nothing wrong is cut.
            String address = connection.channel().remoteAddress() instanceof InetSocketAddress inet
                    ? inet.getAddress().getHostAddress() + ":" + inet.getPort()
                    : String.valueOf(connection.channel().remoteAddress());
            channels.put(address, connection.channel());
            pipeline.addBefore(decoder.name(), null, new Incoming(address));
        }
        return true;
    }

    /**
     * Ends the connection of the socket whose client is at {@code remoteAddress} (as
     * {@link io.quarkus.websockets.next.HandshakeRequest#remoteAddress()} gives it) at once, whatever it has not
     * written yet: for a client that does not read, whose close frame would wait behind what it does not read.
     */
    void abort(String remoteAddress) {
        Channel channel = channels.get(remoteAddress);
        if (channel != null) {
            channel.close();
        }
    }

    /** Counted bytes of messages arriving on this replica now (for tests). */
    long counted() {
        return counted.get();
    }

    /**
     * Counts {@code bytes} more for {@code socket}, closing the sockets whose unfinished messages began before its own,
     * oldest first, as long as there is no room; false (nothing counted) when no such socket is left.
     */
    private boolean count(Incoming socket, long bytes) {
        while (true) {
            if (counted.addAndGet(bytes) <= maxArrivingBytes) {
                return true;
            }
            counted.addAndGet(-bytes);
            Incoming oldest = oldestHolderBefore(socket);
            if (oldest == null) {
                return false;
            }
            oldest.evict();
        }
    }

    /** The socket whose unfinished message began first, if it began before {@code socket}'s (or now); null if none. */
    private Incoming oldestHolderBefore(Incoming socket) {
        long since = socket.holding() ? socket.holdingSince : System.nanoTime();
        Incoming oldest = null;
        for (Incoming holder : holders) {
            if (holder != socket
                    && holder.holdingSince - since < 0
                    && (oldest == null || holder.holdingSince - oldest.holdingSince < 0)) {
                oldest = holder;
            }
        }
        return oldest;
    }

    private void uncount(long bytes) {
        counted.addAndGet(-bytes);
    }

    /**
     * Ahead of the decoder: counts the bytes that come in, once the connection has become a websocket (until then they
     * are HTTP), and puts {@link Decoded} behind the websocket decoder and a {@link Cumulation} in it. While the decoder
     * holds part of a frame it keeps its whole buffer, whatever that buffer grew to for an earlier, bigger frame: that
     * buffer's capacity is counted, not only the bytes left in it. Runs on the connection's event loop only.
     */
    private final class Incoming extends ChannelInboundHandlerAdapter {

        /** The client's address, this connection's key among {@link #channels}. */
        private final String address;

        /** Bytes given to the decoder that have not yet come out of it as frames. */
        private long inDecoder;
        /** Payload bytes of the fragments of a message not yet ended, as Vert.x holds them. */
        private long fragments;
        /** The decoder's buffer, as its cumulator last returned it; the decoder keeps it while it is not empty. */
        private ByteBuf decoderBuffer;
        /**
         * What this socket holds, counted against the replica's bound. Guarded by {@code this}: another socket's
         * thread takes it back when it closes this socket to make room ({@link #evict}).
         */
        private long countedHere;
        /** When the message this socket holds part of began to arrive (System.nanoTime), while it is a holder. */
        private volatile long holdingSince;

        private ChannelHandlerContext context;
        private boolean websocket;
        private boolean refused;
        /** Guarded by {@code this}: closed by another socket to make room; what it held is no longer counted. */
        private boolean evicted;

        private ScheduledFuture<?> deadline;

        Incoming(String address) {
            this.address = address;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (!(msg instanceof ByteBuf bytes)) {
                ctx.fireChannelRead(msg);
                return;
            }
            if (refused || evicted()) {
                bytes.release();
                return;
            }
            if (!websocket && !becameWebsocket(ctx)) {
                if (refused) {
                    bytes.release();
                    return;
                }
                ctx.fireChannelRead(msg);
                return;
            }
            boolean wasHolding = holding();
            inDecoder += bytes.readableBytes();
            // Before the decoder sees them, as its buffer may grow to twice them; settled below once it has.
            if (!recount(ctx, true)) {
                bytes.release();
                return;
            }
            ctx.fireChannelRead(msg);
            if (refused || !recount(ctx, false)) {
                return;
            }
            if (!holding()) {
                cancelDeadline();
                holders.remove(this);
            } else if (!wasHolding) {
                startHolding(ctx);
            }
        }

        private boolean becameWebsocket(ChannelHandlerContext ctx) {
            ChannelHandlerContext decoder = ctx.pipeline().context(WebSocketFrameDecoder.class);
            if (decoder == null) {
                return false;
            }
            if (!(decoder.handler() instanceof ByteToMessageDecoder frames)) {
                LOG.errorf("A websocket decoder Pigeon cannot meter: %s", decoder.handler());
                refuse(ctx, SocketTransport.UNEXPECTED, "The server cannot take this socket.");
                return false;
            }
            frames.setCumulator(new Cumulation(this));
            ctx.pipeline().addAfter(decoder.name(), null, new Decoded(this, ctx));
            context = ctx;
            websocket = true;
            return true;
        }

        boolean holding() {
            return inDecoder > 0 || fragments > 0;
        }

        /** Bytes the decoder was given before this handler could see them: sent with the upgrade request. */
        void pipelined(long bytes) {
            inDecoder += bytes;
        }

        void decoderBuffer(ByteBuf buffer) {
            decoderBuffer = buffer;
        }

        /** A frame of {@code wire} bytes came out of the decoder; {@code fragment} of them stay with Vert.x. */
        void decoded(long wire, long fragment) {
            inDecoder = Math.max(0, inDecoder - wire);
            fragments += fragment;
        }

        long fragments() {
            return fragments;
        }

        /**
         * Counts what this socket holds: twice the fragments Vert.x holds (its buffer grows by doubling) and the
         * decoder's buffer while that is not empty (twice the bytes in it while it may still grow to them); false, with
         * the socket closed, when the replica has no room for it.
         */
        private boolean recount(ChannelHandlerContext ctx, boolean arriving) {
            long decoder = 0;
            if (inDecoder > 0) {
                decoder = arriving || decoderBuffer == null || decoderBuffer.refCnt() == 0
                        ? HELD_PER_ARRIVING_BYTE * inDecoder
                        : Math.max(inDecoder, decoderBuffer.capacity());
            }
            long wanted;
            synchronized (this) {
                wanted = decoder + HELD_PER_ARRIVING_BYTE * fragments - countedHere;
            }
            if (wanted > 0 && !count(this, wanted)) {
                refuse(ctx, SocketTransport.TRY_AGAIN_LATER, full());
                return false;
            }
            synchronized (this) {
                if (evicted) {
                    // Closed to make room meanwhile: what it held was taken back then, and so is this.
                    if (wanted > 0) {
                        uncount(wanted);
                    }
                    return false;
                }
                if (wanted < 0) {
                    uncount(-wanted);
                }
                countedHere += wanted;
            }
            return true;
        }

        private String full() {
            return "The server holds too many messages still arriving (" + maxArrivingBytes
                    + " bytes); try again later.";
        }

        /** A whole message came out of the decoders: the next one has the whole timeout again. */
        void messageEnded(ChannelHandlerContext ctx) {
            fragments = 0;
            cancelDeadline();
            if (holding()) {
                startHolding(ctx);
            } else {
                holders.remove(this);
            }
        }

        /** A message begins to arrive and is held: it may be closed to make room, the oldest first. */
        private void startHolding(ChannelHandlerContext ctx) {
            holdingSince = System.nanoTime();
            holders.add(this);
            startDeadline(ctx);
        }

        private synchronized boolean evicted() {
            return evicted;
        }

        /**
         * Closes this socket to make room for another's message (from that socket's thread): what it holds is no
         * longer counted from now, and the close is written on its own event loop.
         */
        void evict() {
            long held;
            synchronized (this) {
                if (evicted) {
                    holders.remove(this);
                    return;
                }
                evicted = true;
                held = countedHere;
                countedHere = 0;
            }
            holders.remove(this);
            uncount(held);
            ChannelHandlerContext ctx = context;
            ctx.executor().execute(() -> refuse(ctx, SocketTransport.TRY_AGAIN_LATER, full()));
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
            holders.remove(this);
            synchronized (this) {
                uncount(countedHere);
                countedHere = 0;
            }
            inDecoder = 0;
            fragments = 0;
            decoderBuffer = null;
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            forget();
            channels.remove(address, ctx.channel());
            ctx.fireChannelInactive();
        }

        @Override
        public void handlerRemoved(ChannelHandlerContext ctx) {
            forget();
        }
    }

    /**
     * The websocket decoder's cumulator: Netty's own, telling {@link Incoming} which buffer the decoder keeps, and, the
     * first time, what the decoder already held: bytes sent right behind the upgrade request, which the HTTP decoder
     * handed straight to the websocket decoder that replaced it. A buffer that grew for a big frame and now holds the
     * start of a small one is replaced by one of the size needed when the next bytes come: a client cannot keep a big
     * buffer (counted, but for nothing) by always leaving a byte of its next frame unsent.
     */
    private static final class Cumulation implements ByteToMessageDecoder.Cumulator {

        /** Capacity of a read buffer: the decoder's buffer is made smaller only past it. */
        private static final int SHRINK_ABOVE = 65536;

        private final Incoming incoming;
        private boolean first = true;

        Cumulation(Incoming incoming) {
            this.incoming = incoming;
        }

        @Override
        public ByteBuf cumulate(ByteBufAllocator alloc, ByteBuf cumulation, ByteBuf in) {
            if (first) {
                first = false;
                incoming.pipelined(cumulation.readableBytes());
            }
            ByteBuf merged;
            int needed = cumulation.readableBytes() + in.readableBytes();
            if (cumulation.capacity() > SHRINK_ABOVE && cumulation.capacity() > 4L * needed) {
                // A buffer grown for a big frame, now holding the start of a small one: keep only what is needed.
                merged = alloc.buffer(needed);
                merged.writeBytes(cumulation).writeBytes(in);
                cumulation.release();
                in.release();
            } else {
                merged = ByteToMessageDecoder.MERGE_CUMULATOR.cumulate(alloc, cumulation, in);
            }
            incoming.decoderBuffer(merged);
            return merged;
        }
    }

    /**
     * Behind the websocket decoder: each frame it gives out leaves the decoder's buffer, framing included; a fragment
     * that does not end its message stays held by Vert.x until the fragment that does, except those Vert.x drops (the
     * continuations of a message whose fragments so far were empty). While the connection cannot write, only the
     * latest ping is kept, and handed to Vert.x (which answers it) once the connection can write again: Vert.x would
     * queue a pong for every ping of a client that sends pings and does not read (RFC 6455 5.5.3 lets an endpoint
     * answer only the most recent ping).
     */
    private static final class Decoded extends ChannelInboundHandlerAdapter {

        private final Incoming incoming;
        private final ChannelHandlerContext incomingContext;
        private PingWebSocketFrame unansweredPing;

        Decoded(Incoming incoming, ChannelHandlerContext incomingContext) {
            this.incoming = incoming;
            this.incomingContext = incomingContext;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof WebSocketFrame frame) {
                int payload = frame.content().readableBytes();
                boolean data = frame instanceof TextWebSocketFrame
                        || frame instanceof BinaryWebSocketFrame
                        || frame instanceof ContinuationWebSocketFrame;
                boolean droppedByVertx = frame instanceof ContinuationWebSocketFrame && incoming.fragments() == 0;
                boolean heldByVertx = data && !frame.isFinalFragment() && !droppedByVertx;
                incoming.decoded(framed(payload), heldByVertx ? payload : 0);
                if (data && frame.isFinalFragment()) {
                    incoming.messageEnded(incomingContext);
                }
                if (frame instanceof PingWebSocketFrame ping && !writable(ctx)) {
                    if (unansweredPing != null) {
                        unansweredPing.release();
                    }
                    unansweredPing = ping;
                    return;
                }
            }
            ctx.fireChannelRead(msg);
        }

        /** Whether the connection can take more; what Vert.x wrote and has not flushed yet is flushed first. */
        private static boolean writable(ChannelHandlerContext ctx) {
            if (!ctx.channel().isWritable()) {
                ctx.channel().flush();
            }
            return ctx.channel().isWritable();
        }

        @Override
        public void channelWritabilityChanged(ChannelHandlerContext ctx) {
            if (unansweredPing != null && ctx.channel().isWritable()) {
                PingWebSocketFrame ping = unansweredPing;
                unansweredPing = null;
                ctx.fireChannelRead(ping);
                ctx.fireChannelReadComplete();
            }
            ctx.fireChannelWritabilityChanged();
        }

        @Override
        public void handlerRemoved(ChannelHandlerContext ctx) {
            if (unansweredPing != null) {
                unansweredPing.release();
                unansweredPing = null;
            }
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
