package io.pigeon.api;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.AttributeKey;
import java.nio.charset.StandardCharsets;

/**
 * The time one HTTP/1.1 connection's current request has had to arrive, kept by two handlers in its Netty pipeline:
 * one before the request decoder sees raw bytes arrive (the first byte of a request starts its head's clock), one after
 * it sees what the decoder made of them (a whole head starts the body's clock, the body's end stops it) and the answers
 * going out (an answer's end makes the connection wait for the next request, with no clock: the idle timeout bounds
 * that wait). The idle timeout alone cannot bound a request: every byte resets it, so a client sending one byte a
 * minute held a connection for ever. {@link RequestDeadlines} looks at every clock each sweep and cuts the late ones.
 *
 * <p>Everything here runs on the connection's event loop: the handlers, the sweep of that loop and the cut.
 */
final class RequestClock {

    static final AttributeKey<RequestClock> KEY = AttributeKey.valueOf("pigeon.request-clock");

    static final String ARRIVALS = "pigeonRequestArrivals";
    static final String PROGRESS = "pigeonRequestProgress";

    private enum State {
        /** Between requests of a kept-alive connection: nothing is arriving, the idle timeout applies. */
        WAITING,
        /** A request head is arriving (or, first request, the connection is open): head deadline. */
        HEAD,
        /** The head is whole, the body is arriving: body deadline. */
        BODY,
        /** Every request received is being answered: no deadline (a long-poll may take its time). */
        ANSWERING,
        /** Upgraded to a websocket, or cut: nothing more to keep. */
        DONE
    }

    private final Channel channel;
    private final long headNanos;
    private final long bodyNanos;
    private final AddressShares.Share share;
    private State state;
    private long deadline;
    /** Requests whose body has ended, and answers that have ended. */
    private long received;

    private long answered;
    /** Whether an answer has begun and not ended (nothing else may be written then). */
    private boolean answering;
    /** When bytes of a next request arrived while the last one was being answered (0: none). */
    private long pipelinedSince;
    /** How the door of the request arriving answers its late body, when not with the error document (null). */
    private RefusalShape.Shaped lateBodyAnswer;

    private RequestClock(Channel channel, long headNanos, long bodyNanos, AddressShares.Share share, boolean headDone) {
        this.channel = channel;
        this.headNanos = headNanos;
        this.bodyNanos = bodyNanos;
        this.share = share;
        long now = System.nanoTime();
        this.state = headDone ? State.BODY : State.HEAD;
        this.deadline = now + (headDone ? bodyNanos : headNanos);
    }

    /**
     * Puts a clock on {@code channel}, a server connection whose pipeline has Vert.x's HTTP/1.1 codec: its first
     * request's head is arriving ({@code headDone} false) or its body is ({@code headDone} true). The source's share
     * is given back when the connection closes.
     */
    static RequestClock install(
            Channel channel, long headNanos, long bodyNanos, AddressShares.Share share, boolean headDone) {
        RequestClock clock = new RequestClock(channel, headNanos, bodyNanos, share, headDone);
        channel.attr(KEY).set(clock);
        channel.closeFuture().addListener(closed -> share.release());
        ChannelPipeline pipeline = channel.pipeline();
        pipeline.addBefore(RequestDeadlines.DECODER, ARRIVALS, clock.new Arrivals());
        pipeline.addAfter(RequestDeadlines.ENCODER, PROGRESS, clock.new Progress());
        return clock;
    }

    /** The first request's body ended before the clock was put on (it was put on by the router). */
    void bodyEnded() {
        received++;
        state = answered >= received ? State.WAITING : State.ANSWERING;
    }

    /** The request whose body is arriving is answered {@code answer} if its body is late (its door's shape). */
    void answerLateBodyWith(RefusalShape.Shaped answer) {
        if (state == State.BODY) {
            lateBodyAnswer = answer;
        }
    }

    /** What a late body's answer says. */
    static String lateBody(long bodyNanos) {
        return "The request body did not arrive within " + seconds(bodyNanos) + " s of its head.";
    }

    /** Whether the request being received is late at {@code now}. */
    boolean late(long now) {
        return (state == State.HEAD || state == State.BODY) && now - deadline > 0;
    }

    /**
     * Ends a late request: 408 with the error document when nothing is being written on the connection, then the
     * connection is closed (cut at once when an answer is being written: a second one cannot be put after it).
     */
    void cut() {
        boolean head = state == State.HEAD;
        state = State.DONE;
        ChannelHandlerContext progress = channel.pipeline().context(PROGRESS);
        if (answering || answered < received || progress == null) {
            channel.close();
            return;
        }
        FullHttpResponse response = !head && lateBodyAnswer != null ? shaped(lateBodyAnswer) : errorDocument(head);
        response.headers()
                .set(HttpHeaderNames.CONTENT_LENGTH, response.content().readableBytes())
                .set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        // From the progress handler outwards: through Vert.x's encoder, which has no answer of its own under way.
        progress.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
    }

    /** Zaqar's answer, and that of a late head (whose request, and so whose door, is not known yet). */
    private FullHttpResponse errorDocument(boolean head) {
        String description =
                head ? "The request head did not arrive within " + seconds(headNanos) + " s." : lateBody(bodyNanos);
        byte[] body = ("{\"title\":\"Request timeout\",\"description\":\"" + description + "\"}")
                .getBytes(StandardCharsets.UTF_8);
        FullHttpResponse response = new DefaultFullHttpResponse(
                HttpVersion.HTTP_1_1, HttpResponseStatus.REQUEST_TIMEOUT, Unpooled.wrappedBuffer(body));
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON);
        return response;
    }

    private static FullHttpResponse shaped(RefusalShape.Shaped answer) {
        FullHttpResponse response = new DefaultFullHttpResponse(
                HttpVersion.HTTP_1_1,
                HttpResponseStatus.valueOf(answer.status()),
                Unpooled.wrappedBuffer(answer.body()));
        answer.headers().forEach((name, value) -> response.headers().set(name, value));
        return response;
    }

    private static long seconds(long nanos) {
        return Math.max(1, nanos / 1_000_000_000L);
    }

    private void leave(ChannelHandlerContext ctx) {
        state = State.DONE;
        ChannelPipeline pipeline = ctx.pipeline();
        if (pipeline.get(ARRIVALS) != null) {
            pipeline.remove(ARRIVALS);
        }
        if (pipeline.get(PROGRESS) != null) {
            pipeline.remove(PROGRESS);
        }
    }

    /** Before the decoder: the first bytes of a request start its head's clock. */
    private final class Arrivals extends ChannelInboundHandlerAdapter {

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (state == State.WAITING) {
                state = State.HEAD;
                deadline = System.nanoTime() + headNanos;
            } else if (state == State.ANSWERING && pipelinedSince == 0) {
                pipelinedSince = System.nanoTime();
            }
            ctx.fireChannelRead(msg);
        }
    }

    /** After the codec: heads, ends of bodies, and answers. */
    private final class Progress extends ChannelDuplexHandler {

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (!(msg instanceof HttpObject)) {
                // No longer HTTP/1.1 (the decoder was replaced): nothing to keep.
                leave(ctx);
            } else if (state != State.DONE) {
                if (msg instanceof HttpRequest) {
                    state = State.BODY;
                    lateBodyAnswer = null;
                    deadline = System.nanoTime() + bodyNanos;
                    pipelinedSince = 0;
                }
                if (msg instanceof LastHttpContent) {
                    received++;
                    state = answered >= received ? State.WAITING : State.ANSWERING;
                }
            }
            ctx.fireChannelRead(msg);
        }

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) throws Exception {
            boolean upgraded = false;
            boolean interim = false;
            if (msg instanceof HttpResponse response) {
                int code = response.status().code();
                upgraded = code == HttpResponseStatus.SWITCHING_PROTOCOLS.code();
                interim = !upgraded && response.status().codeClass() == HttpStatusClass.INFORMATIONAL;
                if (!interim) {
                    answering = true;
                }
            }
            if (!interim && !upgraded && msg instanceof LastHttpContent) {
                answering = false;
                answered++;
                if (state == State.ANSWERING && answered >= received) {
                    if (pipelinedSince != 0) {
                        // A next request began to arrive during the answer: its head's clock started then.
                        state = State.HEAD;
                        deadline = pipelinedSince + headNanos;
                        pipelinedSince = 0;
                    } else {
                        state = State.WAITING;
                    }
                }
            }
            ctx.write(msg, promise);
            if (upgraded) {
                leave(ctx);
            }
        }
    }
}
