package io.pigeon.reliability;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A websocket to one replica and the text frames it received, in order: for the checks that hold a subscription open
 * on a replica while something happens to it or to its database.
 */
record SocketFrames(WebSocket socket, BlockingQueue<String> received, CompletableFuture<Integer> closedWith) {

    private static final ObjectMapper JSON = new ObjectMapper();

    static SocketFrames open(Replica replica, HttpClient http) throws Exception {
        BlockingQueue<String> received = new LinkedBlockingQueue<>();
        CompletableFuture<Integer> closedWith = new CompletableFuture<>();
        WebSocket socket = http.newWebSocketBuilder()
                .buildAsync(URI.create("ws://127.0.0.1:" + replica.port() + "/"), new WebSocket.Listener() {
                    private final StringBuilder partial = new StringBuilder();

                    @Override
                    public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
                        partial.append(data);
                        if (last) {
                            received.add(partial.toString());
                            partial.setLength(0);
                        }
                        webSocket.request(1);
                        return null;
                    }

                    @Override
                    public CompletionStage<?> onClose(WebSocket webSocket, int statusCode, String reason) {
                        closedWith.complete(statusCode);
                        return null;
                    }
                })
                .get(10, TimeUnit.SECONDS);
        return new SocketFrames(socket, received, closedWith);
    }

    JsonNode call(String frame) throws Exception {
        socket.sendText(frame, true).get(10, TimeUnit.SECONDS);
        JsonNode answer = next(Duration.ofSeconds(10));
        assertTrue(answer != null && answer.has("request"), "no answer to " + frame);
        return answer;
    }

    JsonNode next(Duration wait) throws Exception {
        String frame = received.poll(wait.toMillis(), TimeUnit.MILLISECONDS);
        return frame == null ? null : JSON.readTree(frame);
    }

    void close() {
        socket.sendClose(WebSocket.NORMAL_CLOSURE, "").join();
    }
}
