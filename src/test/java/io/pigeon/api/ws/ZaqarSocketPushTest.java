package io.pigeon.api.ws;

import static io.pigeon.api.ws.SocketClient.body;
import static io.pigeon.api.ws.SocketClient.frame;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.testing.Api;
import io.pigeon.testing.Eventually;
import io.quarkus.test.junit.QuarkusTest;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Sockets that subscribe themselves, with the real push: a message posted over HTTP reaches the subscribed socket as
 * Zaqar's bare notification frame, in the encoding of the frame that subscribed; a socket of another project with a
 * queue of the same name gets nothing; a closed socket's subscription is deleted.
 */
@QuarkusTest
class ZaqarSocketPushTest {

    private final String project = Api.newProject();
    private final String other = Api.newProject();

    @Test
    void aPostOverHttpIsPushedInTheSubscribingFramesEncoding() throws Exception {
        try (SocketClient text = SocketClient.open();
                SocketClient packed = SocketClient.open("/v2")) {
            assertEquals(
                    201,
                    text.call(frame("subscription_create", project, body().put("queue_name", "pushed")))
                            .status());
            assertEquals(
                    201,
                    packed.callPacked(frame("subscription_create", other, body().put("queue_name", "pushed")))
                            .status());

            post(project, "{\"messages\": [{\"ttl\": 300, \"body\": {\"event\": 1.5}}, {\"body\": [\"two\"]}]}");
            var first = text.next();
            assertFalse(first.binary());
            assertEquals(
                    "{\"ttl\":300,\"body\":{\"event\":1.5},\"Message_Type\":\"Notification\",\"queue_name\":\"pushed\"}",
                    first.text());
            // The second message had no ttl: the queue's default, as the webhook's notification says.
            assertEquals(
                    "{\"ttl\":3600,\"body\":[\"two\"],\"Message_Type\":\"Notification\",\"queue_name\":\"pushed\"}",
                    text.next().text());
            assertNull(packed.poll(Duration.ofMillis(500)), "another project's socket was pushed a message");

            post(other, "{\"messages\": [{\"ttl\": 60, \"body\": \"packed\"}]}");
            var binary = packed.next();
            assertTrue(binary.binary());
            assertEquals(
                    "{\"ttl\":60,\"body\":\"packed\",\"Message_Type\":\"Notification\",\"queue_name\":\"pushed\"}",
                    binary.document().toString());
            assertNull(text.poll(Duration.ofMillis(500)), "a socket was pushed another project's message");
        }
    }

    @Test
    void aClosedSocketsSubscriptionIsDeleted() {
        try (SocketClient socket = SocketClient.open()) {
            assertEquals(
                    201,
                    socket.call(frame("subscription_create", project, body().put("queue_name", "closing")))
                            .status());
            Api.as(project)
                    .get("/v2/queues/closing/subscriptions")
                    .then()
                    .statusCode(200)
                    .body("subscriptions", hasSize(1))
                    .body("subscriptions[0].delivery", equalTo("websocket"));
        }
        Eventually.await("the closed socket's subscription deleted", Duration.ofSeconds(10), () -> Api.as(project)
                .get("/v2/queues/closing/subscriptions")
                .then()
                .extract()
                .jsonPath()
                .getList("subscriptions")
                .isEmpty());
        Api.as(project).get("/v2/queues/closing/subscriptions").then().body("subscriptions", empty());
    }

    /**
     * Over HTTP, a socket's own subscription cannot be given another subscriber (it would keep the socket's lease and
     * the socket would stop hearing), and nothing about it changes; its ttl can change, and the socket still hears.
     */
    @Test
    void aSocketsSubscriptionCannotBeReaddressedOverHttp() throws Exception {
        try (SocketClient socket = SocketClient.open()) {
            assertEquals(
                    201,
                    socket.call(frame("subscription_create", project, body().put("queue_name", "pushed")))
                            .status());
            String id = Api.as(project)
                    .get("/v2/queues/pushed/subscriptions")
                    .then()
                    .statusCode(200)
                    .extract()
                    .path("subscriptions[0].id");
            for (String subscriber : List.of("http://127.0.0.1:9/hook", "mailto:someone@example.com")) {
                Api.as(project)
                        .contentType("application/json")
                        .body("{\"subscriber\": \"" + subscriber + "\"}")
                        .patch("/v2/queues/pushed/subscriptions/" + id)
                        .then()
                        .statusCode(400)
                        .body("description", containsString("subscriber"));
            }
            Api.as(project)
                    .contentType("application/json")
                    .body("{\"ttl\": 7200}")
                    .patch("/v2/queues/pushed/subscriptions/" + id)
                    .then()
                    .statusCode(204);
            Api.as(project)
                    .get("/v2/queues/pushed/subscriptions/" + id)
                    .then()
                    .statusCode(200)
                    .body("ttl", equalTo(7200))
                    .body("delivery", equalTo("websocket"));
            post(project, "{\"messages\": [{\"ttl\": 60, \"body\": \"still\"}]}");
            assertEquals("still", socket.next().document().path("body").asText());
        }
    }

    /** A socket that closes before its subscription is answered (stored or not yet) leaves nothing behind. */
    @Test
    void aSocketClosedWhileSubscribingLeavesNoSubscription() {
        for (int i = 0; i < 20; i++) {
            try (SocketClient socket = SocketClient.open()) {
                socket.send(frame("subscription_create", project, body().put("queue_name", "hasty")));
            }
        }
        Eventually.await("the subscriptions of closed sockets deleted", Duration.ofSeconds(15), () -> Api.as(project)
                .get("/v2/queues/hasty/subscriptions")
                .then()
                .extract()
                .jsonPath()
                .getList("subscriptions")
                .isEmpty());
    }

    private static void post(String project, String document) {
        Api.as(project)
                .contentType("application/json")
                .body(document)
                .post("/v2/queues/pushed/messages")
                .then()
                .statusCode(201);
    }
}
