package io.pigeon.api.ws;

import static io.pigeon.api.ws.SocketClient.body;
import static io.pigeon.api.ws.SocketClient.frame;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.security.ShippedDefaultsProfile;
import io.pigeon.testing.Api;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/**
 * What sockets may make a replica hold in bytes, whatever their number of frames: the frames one socket has in flight
 * (past its bound: 1008 once the frames taken are answered), and the frames and unwritten answers of all sockets
 * together (past it: 1013, try again later).
 */
@QuarkusTest
@TestProfile(ShippedDefaultsProfile.class)
class ZaqarSocketByteBoundsTest {

    private final String project = Api.newProject();

    @Inject
    SocketTransport transport;

    @Test
    void framesBeyondTheSocketsBytesCloseItAfterTheTakenFramesAreAnswered() {
        int answered = 0;
        String text = "x".repeat(20_000);
        try (SocketClient socket = SocketClient.open()) {
            for (int i = 0; i < 500 && !socket.closedByServer(); i++) {
                try {
                    socket.send(frame(
                            "message_post",
                            project,
                            body().put("queue_name", "heavy")
                                    .set(
                                            "messages",
                                            SocketClient.JSON.createArrayNode().add(body().put("body", text)))));
                } catch (CompletionException closed) {
                    break;
                }
            }
            assertEquals(1008, socket.closeCode());
            for (var frame = socket.poll(Duration.ofSeconds(1));
                    frame != null;
                    frame = socket.poll(Duration.ofSeconds(1))) {
                assertEquals(201, frame.status(), frame.document().toString());
                answered++;
            }
        }
        assertTrue(answered >= 1, "no frame was answered before the close");
        Api.as(project).get("/v2/queues/heavy/stats").then().body("messages.total", equalTo(answered));
    }

    /**
     * Clients that ask for big answers and read none: once their answers fill the kernel's buffers, the replica holds
     * them, and past 1 MB in all (as counted) a socket is closed with 1013; the replica still answers others.
     */
    @Test
    void answersNobodyReadsAreBoundedOverTheReplica() {
        String message = "{\"ttl\": 300, \"body\": \"" + "y".repeat(20_000) + "\"}";
        for (int batch = 0; batch < 2; batch++) {
            Api.as(project)
                    .contentType("application/json")
                    .body("{\"messages\": [" + String.join(", ", Collections.nCopies(10, message)) + "]}")
                    .post("/v2/queues/big/messages")
                    .then()
                    .statusCode(201);
        }
        List<SocketClient> stalled = new ArrayList<>();
        List<Integer> closeCodes = new ArrayList<>();
        try {
            for (int s = 0; s < 4; s++) {
                stalled.add(SocketClient.stalled());
            }
            // 150 small frames each (about 20 kB, far below a socket's 100 kB), each asking for a page of big messages.
            for (int round = 0; round < 150; round++) {
                for (SocketClient socket : stalled) {
                    try {
                        socket.send(frame(
                                "message_list",
                                project,
                                body().put("queue_name", "big").put("limit", 20).put("echo", true)));
                    } catch (CompletionException gone) {
                        // closed by the server already
                    }
                }
            }
            for (SocketClient socket : stalled) {
                socket.resume();
            }
            // Reading again, each client first finds what the kernel held for it, then its close, if any.
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (!closeCodes.contains(1013) && System.nanoTime() < deadline) {
                closeCodes.clear();
                for (SocketClient socket : stalled) {
                    closeCodes.add(socket.closeCodeWithin(Duration.ofMillis(100)));
                }
            }
        } finally {
            stalled.forEach(SocketClient::close);
        }
        assertTrue(closeCodes.contains(1013), "close codes of the stalled sockets: " + closeCodes);
        try (SocketClient fresh = SocketClient.open()) {
            assertEquals(200, fresh.call(frame("queue_list", project, null)).status());
        }
    }
    /**
     * Sockets subscribed to a queue that read nothing: every post is pushed to each of them, so together they could
     * hold a post's bytes many times over, each below its own bound (4 MiB here). Past the replica's 1 MB (as counted)
     * the sockets furthest behind are closed with 1013, while a socket that reads gets every notification and stays.
     */
    @Test
    void notificationsNobodyReadsAreBoundedOverTheReplicaAndReadersKeepTheirs() {
        String subscribe = "{\"action\": \"subscription_create\", \"headers\": {\"Client-ID\": "
                + "\"3381af92-2b9e-11e3-b191-71861300734c\", \"X-Project-ID\": \"" + project + "\"}, "
                + "\"body\": {\"queue_name\": \"fan\"}}";
        List<RawSocket> stalled = new ArrayList<>();
        try (SocketClient reader = SocketClient.open()) {
            reader.sendText(subscribe);
            assertEquals(201, reader.next().status());
            for (int s = 0; s < 4; s++) {
                RawSocket socket = RawSocket.open(4096).text(subscribe);
                assertTrue(socket.readText(Duration.ofSeconds(5)).contains("\"status\":201"));
                stalled.add(socket);
            }
            int open = transport.openSockets();
            // One message of 10,000 characters a post: each post is a burst of 5 notifications (about 150 kB as
            // counted) over the sockets, well inside the room; the stalled sockets' shares pile up post after post.
            // They see their close only once they read again: the replica's count of sockets tells. Then 50 posts
            // more, the reader still reading.
            String document = "{\"messages\": [{\"ttl\": 300, \"body\": \"" + "z".repeat(10_000) + "\"}]}";
            int posted = 0;
            int closedAt = -1;
            while (closedAt < 0 || posted < closedAt + 50) {
                // Heard (a pong each post), so that only the bound on bytes held can close them.
                for (RawSocket socket : stalled) {
                    try {
                        socket.pong();
                    } catch (UncheckedIOException cut) {
                        // its connection was cut
                    }
                }
                Api.as(project)
                        .contentType("application/json")
                        .body(document)
                        .post("/v2/queues/fan/messages")
                        .then()
                        .statusCode(201);
                posted++;
                SocketClient.Received pushed = reader.poll(Duration.ofSeconds(20));
                assertTrue(
                        pushed != null,
                        "notification " + posted + " did not come; the reader's close: "
                                + reader.closeCodeWithin(Duration.ofMillis(1)));
                assertEquals(
                        "Notification", pushed.document().path("Message_Type").asText());
                if (closedAt < 0 && transport.openSockets() < open) {
                    closedAt = posted;
                }
                assertTrue(posted < 1000, "no stalled socket was closed; held " + transport.heldBytes());
            }
            // The close frame waits behind all that a closed socket does not read, so its connection is cut: the
            // client sees the connection end (or, had it read, 1013). The replica holds at most twice its room.
            assertTrue(transport.heldBytes() <= 2_000_000, "held " + transport.heldBytes());
            List<Integer> closeCodes = new ArrayList<>();
            for (RawSocket socket : stalled) {
                closeCodes.add(socket.readClose(Duration.ofSeconds(5)).code());
            }
            assertTrue(
                    closeCodes.stream().anyMatch(code -> code == 1013 || code == -1),
                    "close codes of the stalled sockets: " + closeCodes);
            assertEquals(null, reader.closeCodeWithin(Duration.ofMillis(200)), "the reader was closed");
            assertEquals(200, reader.call(frame("queue_list", project, null)).status());
        } finally {
            stalled.forEach(RawSocket::close);
        }
    }
}
