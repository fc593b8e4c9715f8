package io.pigeon.api.ws;

import static io.pigeon.api.ws.SocketClient.body;
import static io.pigeon.api.ws.SocketClient.frame;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.testing.Api;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import java.net.http.WebSocketHandshakeException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/**
 * The bounds of pigeon.websocket.* (small ones, see {@link SmallReplicaLimitsProfile}), and the socket side of
 * self-subscription: the notification frame, its encoding, the inbox forgotten on close, a reader too slow.
 */
@QuarkusTest
@TestProfile(SmallReplicaLimitsProfile.class)
class ZaqarSocketLimitsTest {

    private final String project = Api.newProject();

    @Test
    void aReaderThatDoesNotReadIsClosed() {
        try (SocketClient stalled = SocketClient.stalled()) {
            stalled.call(frame("subscription_create", project, body().put("queue_name", "slow")));
            // Posted over HTTP and pushed to a socket that reads nothing, until the kernel's socket buffers are full
            // and more than the 64 KiB this profile lets wait for one socket are queued in the replica. The client
            // stays heard (a pong each round), so only the slow-reader bound can close it: with 1008, and as that
            // close frame waits behind what the client does not read, its connection is cut a second later.
            String message = "{\"ttl\": 300, \"body\": \"" + "x".repeat(10_000) + "\"}";
            String document = "{\"messages\": [" + String.join(", ", Collections.nCopies(20, message)) + "]}";
            boolean cut = false;
            for (int round = 0; round < 400 && !stalled.closedByServer() && !cut; round++) {
                try {
                    stalled.pong();
                } catch (CompletionException closedOutput) {
                    cut = true;
                }
                Api.as(project)
                        .contentType("application/json")
                        .body(document)
                        .post("/v2/queues/slow/messages")
                        .then()
                        .statusCode(201);
            }
            // Reading again, the client finds the notifications that were written, then the close or the cut.
            stalled.resume();
            int code = stalled.closeCode();
            assertTrue(code == 1008 || code == -1, "closed with " + code);
            assertTrue(cut || code == 1008, "neither closed nor cut");
        }
    }

    @Test
    void framesBeyondTheInFlightBoundCloseTheSocketAfterTheTakenFramesAreAnswered() {
        int answered = 0;
        try (SocketClient socket = SocketClient.open()) {
            for (int i = 0; i < 200 && !socket.closedByServer(); i++) {
                try {
                    socket.send(frame(
                            "message_post",
                            project,
                            body().put("queue_name", "busy")
                                    .set(
                                            "messages",
                                            SocketClient.JSON.createArrayNode().add(body().put("body", i)))));
                } catch (CompletionException closed) {
                    break;
                }
            }
            assertEquals(1008, socket.closeCode());
            // Every frame carried out was answered before the close: the client knows which posts landed.
            for (var frame = socket.poll(Duration.ofSeconds(1));
                    frame != null;
                    frame = socket.poll(Duration.ofSeconds(1))) {
                assertEquals(201, frame.status(), frame.document().toString());
                answered++;
            }
        }
        assertTrue(answered >= 1, "no frame was answered before the close");
        Api.as(project).get("/v2/queues/busy/stats").then().body("messages.total", equalTo(answered));
    }

    @Test
    void aProjectMayHoldSoManySockets() {
        String busy = Api.newProject();
        try (SocketClient first = SocketClient.open();
                SocketClient second = SocketClient.open()) {
            assertEquals(200, first.call(frame("queue_list", busy, null)).status());
            assertEquals(
                    200,
                    second.call(frame("queue_list", Api.newProject(), null)).status());
            second.send(frame("queue_list", busy, null));
            assertEquals(1008, second.closeCode());
            assertEquals(200, first.call(frame("queue_list", busy, null)).status());
        }
    }

    @Test
    void aReplicaMayHoldSoManySockets() {
        List<SocketClient> open = new ArrayList<>();
        WebSocketHandshakeException refused = null;
        try {
            for (int i = 0; i < 7 && refused == null; i++) {
                try {
                    open.add(SocketClient.open());
                } catch (CompletionException e) {
                    refused = (WebSocketHandshakeException) e.getCause();
                }
            }
            assertNotNull(refused, "the upgrade past the bound is refused");
            assertEquals(503, refused.getResponse().statusCode());
        } finally {
            open.forEach(SocketClient::close);
        }
    }

    @Test
    void aSilentSocketIsClosedAfterTheIdleTimeout() {
        try (SocketClient socket = SocketClient.open()) {
            assertEquals(1001, socket.closeCode());
        }
    }
}
