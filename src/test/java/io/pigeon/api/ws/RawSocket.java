package io.pigeon.api.ws;

import io.restassured.RestAssured;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;

/**
 * A websocket client written on a plain TCP socket, for what real clients never do: a frame whose header and payload
 * are sent apart, a message left unfinished. Client frames are masked, as the protocol requires.
 */
final class RawSocket implements AutoCloseable {

    /** What the server's close frame said, or {@code code} -1 when the connection ended without one. */
    record Closed(int code, String reason) {}

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private final byte[] mask = new byte[4];
    private long masked;
    /** While {@link #together} runs: the bytes it sends, written at once when it ends. */
    private ByteArrayOutputStream held;

    private RawSocket(Socket socket) throws IOException {
        this.socket = socket;
        this.in = socket.getInputStream();
        this.out = socket.getOutputStream();
    }

    /** Opens a socket at {@code /} of the test server; fails unless the upgrade is answered 101. */
    static RawSocket open() {
        return open(0);
    }

    /**
     * Opens a socket whose receive buffer is {@code receiveBuffer} bytes (0: the system's, which grows): a client that
     * stops reading fills a small one at once.
     */
    static RawSocket open(int receiveBuffer) {
        return open(receiveBuffer, null);
    }

    /**
     * Opens a socket from the client address {@code from} (any 127/8 address on Linux: another client source for the
     * server); fails unless the upgrade is answered 101 (an {@link IllegalStateException} naming the answer).
     */
    static RawSocket openFrom(String from) {
        return open(0, from);
    }

    private static RawSocket open(int receiveBuffer, String from) {
        try {
            Socket socket = new Socket();
            if (receiveBuffer > 0) {
                socket.setReceiveBufferSize(receiveBuffer);
            }
            if (from != null) {
                socket.bind(new InetSocketAddress(InetAddress.getByName(from), 0));
            }
            socket.connect(new InetSocketAddress("localhost", RestAssured.port));
            socket.setSoTimeout(10_000);
            RawSocket raw = new RawSocket(socket);
            raw.out.write(("GET / HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1));
            raw.out.flush();
            ByteArrayOutputStream head = new ByteArrayOutputStream();
            while (!head.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
                int b = raw.in.read();
                if (b < 0) {
                    throw new IOException("the connection ended during the upgrade: " + head);
                }
                head.write(b);
            }
            String answer = head.toString(StandardCharsets.ISO_8859_1);
            if (!answer.startsWith("HTTP/1.1 101")) {
                socket.close();
                throw new IllegalStateException("the upgrade was answered " + answer);
            }
            return raw;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Sends the header of a frame of {@code length} bytes ({@code opcode} 1 text, 2 binary, 0 continuation). */
    RawSocket header(int opcode, boolean fin, long length) {
        ByteArrayOutputStream header = new ByteArrayOutputStream();
        header.write((fin ? 0x80 : 0) | opcode);
        if (length < 126) {
            header.write(0x80 | (int) length);
        } else if (length < 65536) {
            header.write(0x80 | 126);
            header.write((int) (length >> 8));
            header.write((int) length);
        } else {
            header.write(0x80 | 127);
            for (int shift = 56; shift >= 0; shift -= 8) {
                header.write((int) (length >> shift));
            }
        }
        ThreadLocalRandom.current().nextBytes(mask);
        masked = 0;
        header.writeBytes(mask);
        return write(header.toByteArray());
    }

    /** Sends {@code payload}, the next bytes of the frame whose header was sent last. */
    RawSocket payload(byte[] payload) {
        byte[] onWire = new byte[payload.length];
        for (int i = 0; i < payload.length; i++) {
            onWire[i] = (byte) (payload[i] ^ mask[(int) (masked++ % 4)]);
        }
        return write(onWire);
    }

    /** Sends an empty pong: the client is heard without reading. */
    RawSocket pong() {
        return header(10, true, 0);
    }

    /** Sends a whole text frame. */
    RawSocket text(String text) {
        byte[] payload = text.getBytes(StandardCharsets.UTF_8);
        return header(1, true, payload.length).payload(payload);
    }

    /**
     * Sends what {@code frames} sends in one write, so that the server reads it in one read: the end of one frame and
     * the start of the next arrive together (a few bytes, not split by the kernel).
     */
    RawSocket together(Consumer<RawSocket> frames) {
        held = new ByteArrayOutputStream();
        byte[] all;
        try {
            frames.accept(this);
        } finally {
            all = held.toByteArray();
            held = null;
        }
        return write(all);
    }

    private RawSocket write(byte[] bytes) {
        if (held != null) {
            held.writeBytes(bytes);
            return this;
        }
        try {
            out.write(bytes);
            out.flush();
            return this;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Reads server frames until a text frame (returned) or a close frame; null when the server closed instead.
     */
    String readText(Duration within) {
        Object frame = readUntil(within, true);
        return frame instanceof String text ? text : null;
    }

    /** Reads frames, skipping others, until the server's close frame or the end of the connection. */
    Closed readClose(Duration within) {
        Object frame = readUntil(within, false);
        return frame instanceof Closed closed ? closed : new Closed(-1, "no close frame");
    }

    private Object readUntil(Duration within, boolean textWanted) {
        try {
            socket.setSoTimeout((int) within.toMillis());
            while (true) {
                int first = in.read();
                if (first < 0) {
                    return new Closed(-1, "the connection ended");
                }
                int second = in.read();
                long length = second & 0x7F;
                if (length == 126) {
                    length = ((in.read() & 0xFF) << 8) | (in.read() & 0xFF);
                } else if (length == 127) {
                    length = 0;
                    for (int i = 0; i < 8; i++) {
                        length = (length << 8) | (in.read() & 0xFF);
                    }
                }
                byte[] payload = in.readNBytes((int) length);
                int opcode = first & 0x0F;
                if (opcode == 8) {
                    int code = payload.length >= 2 ? ((payload[0] & 0xFF) << 8) | (payload[1] & 0xFF) : 1005;
                    String reason = payload.length > 2
                            ? new String(payload, 2, payload.length - 2, StandardCharsets.UTF_8)
                            : "";
                    return new Closed(code, reason);
                }
                if (opcode == 1 && textWanted) {
                    return new String(payload, StandardCharsets.UTF_8);
                }
            }
        } catch (SocketTimeoutException silent) {
            return new Closed(-2, "nothing within " + within);
        } catch (IOException e) {
            return new Closed(-1, e.toString());
        }
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // already gone
        }
    }
}
