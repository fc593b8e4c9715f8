package io.pigeon.api.ws;

import static io.pigeon.api.ws.SocketClient.body;
import static io.pigeon.api.ws.SocketClient.frame;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.pigeon.testing.Api;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The queue actions of Zaqar's websocket, in JSON and MessagePack frames, and what the envelope echoes. */
@QuarkusTest
class ZaqarSocketQueueTest {

    private final String project = Api.newProject();

    @Test
    void plainGetsOfTheSocketPathsStillReachTheHttpDocuments() {
        given().accept(ContentType.JSON).get("/").then().statusCode(300);
        Api.as(project).get("/v2/").then().statusCode(200);
        // As before the socket was there: /v2 without its slash is no document.
        Api.as(project).get("/v2").then().statusCode(404).body("title", equalTo("404 Not Found"));
    }

    @Test
    void queueLifeInJsonFrames() {
        try (SocketClient socket = SocketClient.open()) {
            var created = socket.call(frame(
                    "queue_create",
                    project,
                    body().put("queue_name", "q1").set("metadata", body().put("description", "d"))));
            assertEquals(201, created.status());
            assertEquals("Queue q1 created.", created.body().asText());
            // The envelope: request (action, body, headers, api), body, headers, in that order.
            List<String> keys = new ArrayList<>();
            created.document().fieldNames().forEachRemaining(keys::add);
            assertEquals(List.of("request", "body", "headers"), keys);
            List<String> requestKeys = new ArrayList<>();
            created.document().get("request").fieldNames().forEachRemaining(requestKeys::add);
            assertEquals(List.of("action", "body", "headers", "api"), requestKeys);
            assertEquals("v2", created.document().at("/request/api").asText());
            assertEquals(
                    project,
                    created.document().at("/request/headers/X-Project-ID").asText());

            assertEquals(
                    204,
                    socket.call(frame("queue_create", project, body().put("queue_name", "q1")))
                            .status());
            socket.call(frame("queue_create", project, body().put("queue_name", "q2")));

            var metadata = socket.call(frame("queue_get", project, body().put("queue_name", "q1")));
            assertEquals(200, metadata.status());
            assertEquals("d", metadata.body().get("description").asText());
            assertEquals(
                    0,
                    socket.call(frame("queue_get", project, body().put("queue_name", "none")))
                            .body()
                            .size());

            var listed = socket.call(frame("queue_list", project, null));
            assertEquals(200, listed.status());
            assertEquals(
                    "[{\"name\":\"q1\"},{\"name\":\"q2\"}]",
                    listed.body().get("queues").toString());
            var detailed = socket.call(
                    frame("queue_list", project, body().put("detailed", true).put("limit", 1)));
            assertEquals(
                    "[{\"name\":\"q1\",\"metadata\":{\"description\":\"d\"}}]",
                    detailed.body().get("queues").toString());
            var next = socket.call(frame("queue_list", project, body().put("marker", "q1")));
            assertEquals("[{\"name\":\"q2\"}]", next.body().get("queues").toString());

            var stats = socket.call(frame("queue_get_stats", project, body().put("queue_name", "q1")));
            assertEquals(200, stats.status());
            assertEquals(
                    "{\"messages\":{\"claimed\":0,\"free\":0,\"total\":0}}",
                    stats.body().toString());
            var missing = socket.call(frame("queue_get_stats", project, body().put("queue_name", "none")));
            assertEquals(404, missing.status());
            assertEquals(
                    "{\"messages\":{\"claimed\":0,\"free\":0,\"total\":0}}",
                    missing.body().toString());

            var purged = socket.call(frame("queue_purge", project, body().put("queue_name", "q1")));
            assertEquals(204, purged.status());
            assertEquals("{}", purged.body().toString());

            var deleted = socket.call(frame("queue_delete", project, body().put("queue_name", "q1")));
            assertEquals(204, deleted.status());
            assertEquals("Queue q1 removed.", deleted.body().asText());
            assertEquals(
                    "[{\"name\":\"q2\"}]",
                    socket.call(frame("queue_list", project, null))
                            .body()
                            .get("queues")
                            .toString());
        }
    }

    @Test
    void binaryFramesAreAnsweredInMessagePackEvenOnATextSocket() {
        try (SocketClient socket = SocketClient.open("/v2")) {
            var created = socket.callPacked(frame("queue_create", project, body().put("queue_name", "packed")));
            assertTrue(created.binary());
            assertEquals(201, created.status());
            var listed = socket.callPacked(frame("queue_list", project, null));
            assertTrue(listed.binary());
            assertEquals("[{\"name\":\"packed\"}]", listed.body().get("queues").toString());
            var text = socket.call(frame("queue_list", project, null));
            assertFalse(text.binary());
            var stats = socket.callPacked(frame("queue_get_stats", project, body().put("queue_name", "packed")));
            assertEquals(200, stats.status());
            socket.callPacked(frame("queue_delete", project, body().put("queue_name", "packed")));
        }
    }

    @Test
    void queueErrors() {
        try (SocketClient socket = SocketClient.open()) {
            var badName = socket.call(frame("queue_create", project, body().put("queue_name", "bad$queue")));
            assertEquals(400, badName.status());
            // The text HTTP gives.
            assertTrue(badName.body()
                    .get("exception")
                    .asText()
                    .startsWith("The format of the submitted queue name or project id is not valid."));
            assertTrue(badName.body().get("error").isNull());
            var limit = socket.call(frame("queue_list", project, body().put("limit", 0)));
            assertEquals(400, limit.status());
            assertEquals(
                    "Limit must be at least 1 and no greater than 20.",
                    limit.body().get("exception").asText());
            var big = socket.call(frame(
                    "queue_create",
                    project,
                    body().put("queue_name", "big").set("metadata", body().put("x", "a".repeat(65536)))));
            assertEquals(400, big.status());
            assertEquals(
                    "Queue metadata is too large. Max size: 65536",
                    big.body().get("exception").asText());
            assertEquals(
                    0,
                    socket.call(frame("queue_list", project, null))
                            .body()
                            .get("queues")
                            .size());
        }
    }

    @Test
    void answersComeInTheOrderOfTheFramesSentAtOnce() {
        try (SocketClient socket = SocketClient.open()) {
            int frames = 12;
            for (int i = 0; i < frames; i++) {
                String action = i % 3 == 0 ? "queue_create" : i % 3 == 1 ? "queue_get_stats" : "queue_list";
                socket.send(frame(action, project, body().put("queue_name", "order-" + i)));
            }
            for (int i = 0; i < frames; i++) {
                JsonNode answer = socket.next().document();
                String action = i % 3 == 0 ? "queue_create" : i % 3 == 1 ? "queue_get_stats" : "queue_list";
                assertEquals(action, answer.at("/request/action").asText());
                assertEquals("order-" + i, answer.at("/request/body/queue_name").asText());
            }
        }
    }
}
