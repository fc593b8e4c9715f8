package io.pigeon.api.ws;

import static org.junit.jupiter.api.Assertions.assertNotNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.restassured.RestAssured;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.msgpack.jackson.dataformat.MessagePackFactory;

/**
 * A websocket client as a Zaqar client uses one (the JDK's): it sends frames, text (JSON) or binary (MessagePack),
 * and hands back each frame it receives, decoded, with whether it was binary; and the close code the server sent.
 */
final class SocketClient implements AutoCloseable {

    static final ObjectMapper JSON = new ObjectMapper();
    static final ObjectMapper MESSAGE_PACK = new ObjectMapper(new MessagePackFactory());
    static final Duration WAIT = Duration.ofSeconds(20);

    /** A frame received: its document, and whether it came binary. */
    record Received(JsonNode document, boolean binary, String text) {
        int status() {
            return document.path("headers").path("status").asInt();
        }

        JsonNode body() {
            return document.get("body");
        }
    }

    private final BlockingQueue<Received> frames = new LinkedBlockingQueue<>();
    private final CompletableFuture<Integer> closeCode = new CompletableFuture<>();
    private final CompletableFuture<String> closeReason = new CompletableFuture<>();
    private final WebSocket socket;

    /** A client that stops reading after its first frame (a slow reader). */
    private final boolean stalls;

    private SocketClient(String path, boolean stalls) {
        this.stalls = stalls;
        URI uri = URI.create("ws://localhost:" + RestAssured.port + path);
        this.socket = HttpClient.newHttpClient()
                .newWebSocketBuilder()
                .buildAsync(uri, new Listener())
                .orTimeout(WAIT.toSeconds(), TimeUnit.SECONDS)
                .join();
    }

    static SocketClient open() {
        return new SocketClient("/", false);
    }

    static SocketClient open(String path) {
        return new SocketClient(path, false);
    }

    /** A client that reads its first frame and then nothing more. */
    static SocketClient stalled() {
        return new SocketClient("/", true);
    }

    void sendText(String frame) {
        socket.sendText(frame, true)
                .orTimeout(WAIT.toSeconds(), TimeUnit.SECONDS)
                .join();
    }

    void sendBinary(byte[] frame) {
        socket.sendBinary(ByteBuffer.wrap(frame), true)
                .orTimeout(WAIT.toSeconds(), TimeUnit.SECONDS)
                .join();
    }

    void send(JsonNode frame) {
        try {
            sendText(JSON.writeValueAsString(frame));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    void sendPacked(JsonNode frame) {
        try {
            sendBinary(MESSAGE_PACK.writeValueAsBytes(frame));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** An unsolicited pong: the client is heard without sending a request. */
    void pong() {
        socket.sendPong(ByteBuffer.allocate(0))
                .orTimeout(WAIT.toSeconds(), TimeUnit.SECONDS)
                .join();
    }

    /** A stalled client reads again, everything. */
    void resume() {
        socket.request(Long.MAX_VALUE);
    }

    /** The next frame received; fails when none comes in time. */
    Received next() {
        try {
            Received frame = frames.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            assertNotNull(frame, "no frame within " + WAIT);
            return frame;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The next frame if one comes within {@code wait}; null otherwise. */
    Received poll(Duration wait) {
        try {
            return frames.poll(wait.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Sends {@code frame} as JSON and returns the answer. */
    Received call(JsonNode frame) {
        send(frame);
        return next();
    }

    /** Sends {@code frame} as MessagePack and returns the answer. */
    Received callPacked(JsonNode frame) {
        sendPacked(frame);
        return next();
    }

    /** The close code the server sent; fails when it does not close in time. */
    int closeCode() {
        return closeCode.orTimeout(WAIT.toSeconds(), TimeUnit.SECONDS).join();
    }

    /** The reason the server's close frame gave; fails when it does not close in time. */
    String closeReason() {
        return closeReason.orTimeout(WAIT.toSeconds(), TimeUnit.SECONDS).join();
    }

    /** The close code the server sent, if it closes within {@code wait}; null otherwise. */
    Integer closeCodeWithin(Duration wait) {
        try {
            return closeCode.get(wait.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (ExecutionException | TimeoutException notClosed) {
            return null;
        }
    }

    boolean closedByServer() {
        return closeCode.isDone();
    }

    @Override
    public void close() {
        if (!socket.isOutputClosed()) {
            socket.sendClose(WebSocket.NORMAL_CLOSURE, "").exceptionally(e -> null);
        }
        socket.abort();
    }

    /** A request frame: action, headers of {@code project}, body. */
    static ObjectNode frame(String action, String project, ObjectNode body) {
        ObjectNode frame = JSON.createObjectNode().put("action", action);
        frame.putObject("headers")
                .put("Client-ID", "3381af92-2b9e-11e3-b191-71861300734c")
                .put("X-Project-ID", project);
        if (body != null) {
            frame.set("body", body);
        }
        return frame;
    }

    static ObjectNode body() {
        return JSON.createObjectNode();
    }

    private final class Listener implements WebSocket.Listener {
        private final StringBuilder text = new StringBuilder();
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

        @Override
        public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
            text.append(data);
            if (last) {
                String frame = text.toString();
                text.setLength(0);
                try {
                    frames.add(new Received(JSON.readTree(frame), false, frame));
                } catch (IOException e) {
                    frames.add(new Received(null, false, frame));
                }
            }
            if (!stalls) {
                webSocket.request(1);
            }
            return null;
        }

        @Override
        public CompletionStage<?> onBinary(WebSocket webSocket, ByteBuffer data, boolean last) {
            byte[] chunk = new byte[data.remaining()];
            data.get(chunk);
            bytes.writeBytes(chunk);
            if (last) {
                byte[] frame = bytes.toByteArray();
                bytes.reset();
                try {
                    frames.add(new Received(MESSAGE_PACK.readTree(frame), true, null));
                } catch (IOException e) {
                    frames.add(new Received(null, true, null));
                }
            }
            if (!stalls) {
                webSocket.request(1);
            }
            return null;
        }

        @Override
        public CompletionStage<?> onClose(WebSocket webSocket, int statusCode, String reason) {
            closeReason.complete(reason);
            closeCode.complete(statusCode);
            return null;
        }

        @Override
        public void onError(WebSocket webSocket, Throwable error) {
            closeCode.complete(-1);
        }
    }
}
