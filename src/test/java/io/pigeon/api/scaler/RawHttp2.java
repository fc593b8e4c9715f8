package io.pigeon.api.scaler;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersDecoder;
import io.netty.handler.codec.http2.DefaultHttp2HeadersEncoder;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2Headers;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * An HTTP/2 client written frame by frame over a plain socket, for what no well-behaved gRPC client does: open more
 * streams than the server allows, or announce a message and never finish it. Headers are coded with Netty's HPACK
 * coder; everything else is written by hand.
 */
final class RawHttp2 implements AutoCloseable {

    static final int DATA = 0x0;
    static final int HEADERS = 0x1;
    static final int RST_STREAM = 0x3;
    static final int SETTINGS = 0x4;
    static final int PING = 0x6;
    static final int GOAWAY = 0x7;

    static final int END_STREAM = 0x1;
    static final int ACK = 0x1;
    static final int END_HEADERS = 0x4;

    static final int SETTINGS_MAX_CONCURRENT_STREAMS = 0x3;
    static final int REFUSED_STREAM = 0x7;

    private static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

    /** A frame as received; {@code headers} decoded for a HEADERS frame, else null. */
    record Frame(int type, int flags, int stream, byte[] payload, Http2Headers headers) {

        boolean has(int flag) {
            return (flags & flag) != 0;
        }

        /** The error code of a RST_STREAM or GOAWAY frame. */
        int errorCode() {
            ByteBuffer buffer = ByteBuffer.wrap(payload);
            return type == GOAWAY ? buffer.getInt(4) : buffer.getInt(0);
        }
    }

    private final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;
    private final DefaultHttp2HeadersEncoder encoder = new DefaultHttp2HeadersEncoder();
    private final DefaultHttp2HeadersDecoder decoder = new DefaultHttp2HeadersDecoder(false);

    RawHttp2(String host, int port) throws IOException {
        socket = new Socket(host, port);
        socket.setSoTimeout(30_000);
        in = new DataInputStream(socket.getInputStream());
        out = socket.getOutputStream();
    }

    /**
     * Sends the preface and empty settings, acknowledges the server's settings and waits until the server has read
     * the acknowledgement (a PING answered after it), so that its settings are in force. The server's settings.
     */
    Map<Integer, Long> handshake() throws IOException {
        out.write(PREFACE);
        frame(SETTINGS, 0, 0, new byte[0]);
        Map<Integer, Long> settings = null;
        while (settings == null) {
            Frame frame = next();
            if (frame.type() == SETTINGS && !frame.has(ACK)) {
                settings = new HashMap<>();
                ByteBuffer payload = ByteBuffer.wrap(frame.payload());
                while (payload.remaining() >= 6) {
                    settings.put(payload.getShort() & 0xffff, payload.getInt() & 0xffffffffL);
                }
            }
        }
        frame(SETTINGS, ACK, 0, new byte[0]);
        frame(PING, 0, 0, new byte[8]);
        Frame frame;
        do {
            frame = next();
        } while (!(frame.type() == PING && frame.has(ACK)));
        return settings;
    }

    /** Opens a call of the external scaler's {@code method} on {@code stream} (odd, increasing). */
    void call(int stream, String method) throws IOException {
        Http2Headers headers = new DefaultHttp2Headers()
                .method("POST")
                .scheme("http")
                .path("/externalscaler.ExternalScaler/" + method)
                .authority("localhost")
                .add("content-type", "application/grpc")
                .add("te", "trailers");
        ByteBuf block = Unpooled.buffer();
        try {
            encoder.encodeHeaders(stream, headers, block);
        } catch (Http2Exception e) {
            throw new IOException(e);
        }
        byte[] bytes = new byte[block.readableBytes()];
        block.readBytes(bytes);
        block.release();
        frame(HEADERS, END_HEADERS, stream, bytes);
    }

    /** The start of a gRPC message that announces {@code length} bytes: its prefix and {@code sent} of them. */
    static byte[] unfinishedMessage(int length, int sent) {
        return ByteBuffer.allocate(5 + sent).put((byte) 0).putInt(length).array();
    }

    /** A whole gRPC message. */
    static byte[] message(byte[] body) {
        return ByteBuffer.allocate(5 + body.length)
                .put((byte) 0)
                .putInt(body.length)
                .put(body)
                .array();
    }

    void data(int stream, byte[] bytes, boolean endStream) throws IOException {
        frame(DATA, endStream ? END_STREAM : 0, stream, bytes);
    }

    /**
     * The next frame from the server; an {@link java.io.EOFException} when it closed the connection. A PING is answered
     * as a client does (grpc-java's server closes a connection after a GOAWAY and a PING, or 10 s without its answer).
     */
    Frame next() throws IOException {
        int length = in.readUnsignedByte() << 16 | in.readUnsignedShort();
        int type = in.readUnsignedByte();
        int flags = in.readUnsignedByte();
        int stream = in.readInt() & 0x7fffffff;
        byte[] payload = new byte[length];
        in.readFully(payload);
        Http2Headers headers = null;
        if (type == HEADERS) {
            try {
                headers = decoder.decodeHeaders(stream, Unpooled.wrappedBuffer(payload));
            } catch (Http2Exception e) {
                throw new IOException(e);
            }
        }
        if (type == PING && (flags & ACK) == 0) {
            frame(PING, ACK, 0, payload);
        }
        return new Frame(type, flags, stream, payload, headers);
    }

    private void frame(int type, int flags, int stream, byte[] payload) throws IOException {
        ByteArrayOutputStream frame = new ByteArrayOutputStream(9 + payload.length);
        frame.write(payload.length >>> 16);
        frame.write(payload.length >>> 8);
        frame.write(payload.length);
        frame.write(type);
        frame.write(flags);
        frame.writeBytes(ByteBuffer.allocate(4).putInt(stream).array());
        frame.writeBytes(payload);
        out.write(frame.toByteArray());
        out.flush();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
