package io.pigeon.testing;

import java.io.BufferedInputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * HTTP/1.1 over a plain socket, with the request line and header bytes exactly as given: no client library
 * normalises the path (double slashes, dot segments, percent-encoding) or refuses odd header bytes, so a test
 * sees what an attacker's {@code curl --path-as-is} gets.
 */
public final class RawHttp {

    /** The last five bytes of a chunked body, "0\r\n\r\n", as a number. */
    private static final long END_OF_CHUNKS = 0x30_0D0A_0D0AL;

    /** What came back: status, headers (names in lower case), body as text. */
    public record Answer(int status, Map<String, String> headers, String body) {
        public String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }

        public boolean isErrorDocument() {
            String type = header("content-type");
            return type != null
                    && type.startsWith("application/json")
                    && body.contains("\"title\"")
                    && body.contains("\"description\"");
        }

        @Override
        public String toString() {
            return status + " " + (body.length() > 200 ? body.substring(0, 200) + "..." : body);
        }
    }

    private RawHttp() {}

    /** Sends {@code method rawPath} with {@code headers} (raw bytes, ISO-8859-1) and an optional body. */
    public static Answer send(int port, String method, String rawPath, Map<String, String> headers, String body) {
        byte[] content = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
        StringBuilder head = new StringBuilder(method)
                .append(' ')
                .append(rawPath)
                .append(" HTTP/1.1\r\n")
                .append("Host: localhost:")
                .append(port)
                .append("\r\n")
                .append("Connection: close\r\n");
        headers.forEach(
                (name, value) -> head.append(name).append(": ").append(value).append("\r\n"));
        if (body != null) {
            head.append("Content-Length: ").append(content.length).append("\r\n");
        }
        head.append("\r\n");
        try (Socket socket = new Socket("localhost", port)) {
            socket.setSoTimeout(30_000);
            OutputStream out = socket.getOutputStream();
            out.write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
            out.write(content);
            out.flush();
            return read(socket.getInputStream(), method.equals("HEAD"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * A websocket upgrade request ({@code GET rawPath} with the upgrade headers and {@code headers}): a 101 answer is
     * returned as soon as its head is read (the socket is then closed); any other answer whole.
     */
    public static Answer upgrade(int port, String rawPath, Map<String, String> headers) {
        StringBuilder head = new StringBuilder("GET ")
                .append(rawPath)
                .append(" HTTP/1.1\r\nHost: localhost:")
                .append(port)
                .append("\r\n")
                .append(UPGRADE_HEADERS);
        headers.forEach(
                (name, value) -> head.append(name).append(": ").append(value).append("\r\n"));
        head.append("\r\n");
        return exchange(port, head.toString());
    }

    /** The headers that make a GET a websocket upgrade request, each ending with CRLF. */
    public static final String UPGRADE_HEADERS = "Upgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n";

    /**
     * Sends {@code head} (a request line and headers ending with an empty line, ISO-8859-1, exactly as given: any
     * {@code Host}, none, or two) and reads the answer: a 101 answer as soon as its head is read (the socket is then
     * closed); any other whole, by its length, its chunks or the connection's end.
     */
    public static Answer exchange(int port, String head) {
        try (Socket socket = new Socket("localhost", port)) {
            socket.setSoTimeout(30_000);
            socket.getOutputStream().write(head.getBytes(StandardCharsets.ISO_8859_1));
            socket.getOutputStream().flush();
            InputStream in = socket.getInputStream();
            ByteArrayOutputStream read = new ByteArrayOutputStream();
            while (!read.toString(StandardCharsets.ISO_8859_1).contains("\r\n\r\n")) {
                int b = in.read();
                if (b < 0) {
                    break;
                }
                read.write(b);
            }
            Answer answered = read(new ByteArrayInputStream(read.toByteArray()), true);
            if (answered.status() == 101) {
                return answered;
            }
            // Anything else is an ordinary answer: read its body by its length (the connection may stay open).
            String length = answered.header("content-length");
            if (length != null) {
                read.write(in.readNBytes(Integer.parseInt(length)));
            } else if ("chunked".equalsIgnoreCase(answered.header("transfer-encoding"))) {
                // Only the last five bytes are compared: a streamed answer of megabytes (/q/metrics/queues is
                // written in chunks) made a comparison of everything read so far, byte after byte, quadratic.
                ByteArrayOutputStream chunks = new ByteArrayOutputStream();
                InputStream buffered = new BufferedInputStream(in);
                long tail = 0;
                while (tail != END_OF_CHUNKS) {
                    int b = buffered.read();
                    if (b < 0) {
                        break;
                    }
                    chunks.write(b);
                    tail = ((tail << 8) | b) & 0xFF_FFFF_FFFFL;
                }
                read.write(chunks.toByteArray());
            } else if (answered.status() != 204 && answered.status() != 304) {
                read.write(in.readAllBytes());
            }
            return read(new ByteArrayInputStream(read.toByteArray()), false);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Sends {@code body} in chunks of 64 KiB, with no Content-Length: a streamed upload. */
    public static Answer sendChunked(
            int port, String method, String rawPath, Map<String, String> headers, byte[] body) {
        StringBuilder head = new StringBuilder(method)
                .append(' ')
                .append(rawPath)
                .append(" HTTP/1.1\r\n")
                .append("Host: localhost:")
                .append(port)
                .append("\r\n")
                .append("Connection: close\r\nTransfer-Encoding: chunked\r\n");
        headers.forEach(
                (name, value) -> head.append(name).append(": ").append(value).append("\r\n"));
        head.append("\r\n");
        try (Socket socket = new Socket("localhost", port)) {
            socket.setSoTimeout(30_000);
            OutputStream out = socket.getOutputStream();
            out.write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
            try {
                for (int at = 0; at < body.length; at += 65536) {
                    int length = Math.min(65536, body.length - at);
                    out.write((Integer.toHexString(length) + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
                    out.write(body, at, length);
                    out.write("\r\n".getBytes(StandardCharsets.ISO_8859_1));
                }
                out.write("0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
                out.flush();
            } catch (IOException e) {
                // The server answered and closed before the whole body was sent: read what it said.
            }
            return read(socket.getInputStream(), false);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Reads one answer to a request sent on the caller's own connection (not to HEAD), whole, until the connection ends. */
    public static Answer read(InputStream in) throws IOException {
        return read(in, false);
    }

    private static Answer read(InputStream in, boolean head) throws IOException {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        in.transferTo(all);
        String text = all.toString(StandardCharsets.ISO_8859_1);
        int end = text.indexOf("\r\n\r\n");
        String[] lines = text.substring(0, end < 0 ? text.length() : end).split("\r\n");
        int status = Integer.parseInt(lines[0].split(" ")[1]);
        Map<String, String> headers = new LinkedHashMap<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            if (colon > 0) {
                headers.put(
                        lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT),
                        lines[i].substring(colon + 1).trim());
            }
        }
        String rest = end < 0 || head ? "" : text.substring(end + 4);
        if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
            rest = dechunk(rest);
        }
        return new Answer(
                status, headers, new String(rest.getBytes(StandardCharsets.ISO_8859_1), StandardCharsets.UTF_8));
    }

    private static String dechunk(String chunked) {
        StringBuilder body = new StringBuilder();
        int at = 0;
        while (at < chunked.length()) {
            int lineEnd = chunked.indexOf("\r\n", at);
            if (lineEnd < 0) {
                break;
            }
            int size = Integer.parseInt(
                    chunked.substring(at, lineEnd).split(";")[0].trim(), 16);
            if (size == 0) {
                break;
            }
            body.append(chunked, lineEnd + 2, lineEnd + 2 + size);
            at = lineEnd + 2 + size + 2;
        }
        return body.toString();
    }
}
