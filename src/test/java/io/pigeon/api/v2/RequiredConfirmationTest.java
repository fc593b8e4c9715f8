package io.pigeon.api.v2;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pigeon.testing.Api;
import io.pigeon.testing.Eventually;
import io.pigeon.testing.Receiver;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import java.time.Duration;
import org.hamcrest.Matchers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * With {@code pigeon.notification.require-confirmation} on, as Zaqar's {@code require_confirmation}: a new webhook
 * is sent a confirmation request carrying a pre-signed URL for its own confirm path, is notified only once it has
 * confirmed with that URL alone, and is told when it unsubscribes.
 */
@QuarkusTest
@TestProfile(ZaqarOptInsProfile.class)
class RequiredConfirmationTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @RegisterExtension
    static final Receiver receiver = new Receiver();

    private final String project = Api.newProject();

    private void post(String body) {
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"messages\": [{\"body\": \"" + body + "\"}]}")
                .post("/v2/queues/orders/messages")
                .then()
                .statusCode(201);
    }

    /**
     * What the subscriber does with a confirmation request: sends {@code body} to {@code path} with the request's
     * signed headers and nothing else of the project's.
     */
    private static Response confirmThrough(JsonNode request, String body, String path) {
        return given().header("Client-ID", Api.CLIENT_ID)
                .header("X-Project-Id", request.get("X-Project-ID").asText())
                .header("URL-Signature", request.get("URL-Signature").asText())
                .header("URL-Expires", request.get("URL-Expires").asText())
                .header("URL-Methods", request.get("URL-Methods").asText())
                .header("URL-Paths", request.get("URL-Paths").asText())
                .contentType(ContentType.JSON)
                .body(body)
                .put(path);
    }

    @Test
    void aWebhookIsNotifiedOnlyOnceItHasConfirmed() throws Exception {
        String id = Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"subscriber\": \"" + receiver.url("/hook") + "\", \"ttl\": 3600}")
                .post("/v2/queues/orders/subscriptions")
                .then()
                .statusCode(201)
                .extract()
                .jsonPath()
                .getString("subscription_id");
        Eventually.await(
                "the confirmation request",
                Duration.ofSeconds(3),
                () -> receiver.calls("/hook").size() == 1);
        JsonNode request = JSON.readTree(receiver.calls("/hook").get(0).body());
        assertEquals("SubscriptionConfirmation", request.get("Message_Type").asText());
        assertEquals(
                "You have chosen to subscribe to the queue: orders",
                request.get("Message").asText());
        String confirmPath = "/v2/queues/orders/subscriptions/" + id + "/confirm";
        assertEquals(confirmPath, request.get("URL-Paths").asText());
        assertEquals("PUT", request.get("URL-Methods").asText());
        assertEquals(project, request.get("X-Project-ID").asText());
        assertEquals("orders", request.get("queue_name").asText());
        assertEquals("{\"confirmed\":true}", request.get("SubscribeBody").toString());
        assertEquals("{\"confirmed\":false}", request.get("UnsubscribeBody").toString());
        assertTrue(request.get("URL-Signature").asText().matches("[0-9a-f]{64}"), request.toString());

        // The project cannot consent for the receiver: its own credentials, and a share of its subscriptions with
        // every method, are refused, and nothing is confirmed.
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"confirmed\": true}")
                .put(confirmPath)
                .then()
                .statusCode(403)
                .body("description", Matchers.containsString("subscriber"));
        JsonNode share = JSON.readTree(Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"paths\": [\"subscriptions\"], \"methods\": [\"PUT\", \"GET\"]}")
                .post("/v2/queues/orders/share")
                .then()
                .statusCode(200)
                .extract()
                .asString());
        given().header("Client-ID", Api.CLIENT_ID)
                .header("X-Project-Id", project)
                .header("URL-Signature", share.get("signature").asText())
                .header("URL-Expires", share.get("expires").asText())
                .header("URL-Methods", "GET,PUT")
                .header("URL-Paths", share.get("paths").get(0).asText())
                .contentType(ContentType.JSON)
                .body("{\"confirmed\": true}")
                .put(confirmPath)
                .then()
                .statusCode(404);
        Api.as(project).get("/v2/queues/orders/subscriptions/" + id).then().body("confirmed", equalTo(false));

        post("before");
        Thread.sleep(1500);
        assertEquals(1, receiver.calls("/hook").size(), "no notification before the confirmation");

        // The subscriber confirms with what it was sent, and nothing else of the project's.
        confirmThrough(request, request.get("SubscribeBody").toString(), confirmPath)
                .then()
                .statusCode(204);
        Api.as(project).get("/v2/queues/orders/subscriptions/" + id).then().body("confirmed", equalTo(true));

        post("after");
        Eventually.await(
                "the notification",
                Duration.ofSeconds(3),
                () -> receiver.calls("/hook").size() == 2);
        assertEquals(
                "after",
                JSON.readTree(receiver.calls("/hook").get(1).body()).get("body").asText());

        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"confirmed\": false}")
                .put(confirmPath)
                .then()
                .statusCode(204);
        Eventually.await(
                "the unsubscribe notice",
                Duration.ofSeconds(3),
                () -> receiver.calls("/hook").size() == 3);
        assertEquals(
                "UnsubscribeConfirmation",
                JSON.readTree(receiver.calls("/hook").get(2).body())
                        .get("Message_Type")
                        .asText());
        post("unsubscribed");
        Thread.sleep(1500);
        assertEquals(3, receiver.calls("/hook").size(), "no notification once unsubscribed");
    }

    @Test
    void aTopicsWebhookConfirmsThroughTheTopicsOwnPath() throws Exception {
        String id = Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"subscriber\": \"" + receiver.url("/topic-hook") + "\", \"ttl\": 3600}")
                .post("/v2/topics/events.eu/subscriptions")
                .then()
                .statusCode(201)
                .extract()
                .jsonPath()
                .getString("subscription_id");
        Eventually.await(
                "the confirmation request",
                Duration.ofSeconds(3),
                () -> receiver.calls("/topic-hook").size() == 1);
        JsonNode request = JSON.readTree(receiver.calls("/topic-hook").get(0).body());
        String confirmPath = "/v2/topics/events.eu/subscriptions/" + id + "/confirm";
        assertEquals(confirmPath, request.get("URL-Paths").asText());
        assertEquals(
                "You have chosen to subscribe to the topic: events.eu",
                request.get("Message").asText());
        assertEquals("events.eu", request.get("queue_name").asText());

        confirmThrough(request, "{\"confirmed\": true}", confirmPath).then().statusCode(204);
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"messages\": [{\"body\": \"published\"}]}")
                .post("/v2/topics/events.eu/messages")
                .then()
                .statusCode(201);
        Eventually.await(
                "the notification",
                Duration.ofSeconds(3),
                () -> receiver.calls("/topic-hook").size() == 2);
        assertEquals(
                "published",
                JSON.readTree(receiver.calls("/topic-hook").get(1).body())
                        .get("body")
                        .asText());
    }

    /** A confirmed subscription given another subscriber is unconfirmed: the new one has consented to nothing. */
    @Test
    void aNewSubscriberMustConfirmAgain() throws Exception {
        String id = Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"subscriber\": \"" + receiver.url("/first") + "\", \"ttl\": 3600}")
                .post("/v2/queues/repointed/subscriptions")
                .then()
                .statusCode(201)
                .extract()
                .jsonPath()
                .getString("subscription_id");
        String confirmPath = "/v2/queues/repointed/subscriptions/" + id + "/confirm";
        Eventually.await(
                "the confirmation request",
                Duration.ofSeconds(3),
                () -> receiver.calls("/first").size() == 1);
        JsonNode first = JSON.readTree(receiver.calls("/first").get(0).body());
        confirmThrough(first, "{\"confirmed\": true}", confirmPath).then().statusCode(204);

        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"subscriber\": \"" + receiver.url("/second") + "\"}")
                .patch("/v2/queues/repointed/subscriptions/" + id)
                .then()
                .statusCode(204);
        Api.as(project).get("/v2/queues/repointed/subscriptions/" + id).then().body("confirmed", equalTo(false));
        Eventually.await(
                "the new subscriber's confirmation request",
                Duration.ofSeconds(3),
                () -> receiver.calls("/second").size() == 1);
        assertEquals(
                "SubscriptionConfirmation",
                JSON.readTree(receiver.calls("/second").get(0).body())
                        .get("Message_Type")
                        .asText());

        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"messages\": [{\"body\": \"unasked\"}]}")
                .post("/v2/queues/repointed/messages")
                .then()
                .statusCode(201);
        Thread.sleep(1500);
        assertEquals(1, receiver.calls("/second").size(), "no notification before the new subscriber confirms");
        assertEquals(1, receiver.calls("/first").size(), "none to the old subscriber either");
    }

    /**
     * A grant sent to an earlier subscriber confirms nothing once the subscriber has changed: only the latest
     * request's grant does (else a project could repoint a subscription it confirmed through its own receiver).
     */
    @Test
    void aGrantSentToAnEarlierSubscriberNoLongerConfirms() throws Exception {
        String id = Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"subscriber\": \"" + receiver.url("/mine") + "\", \"ttl\": 3600}")
                .post("/v2/queues/stale/subscriptions")
                .then()
                .statusCode(201)
                .extract()
                .jsonPath()
                .getString("subscription_id");
        String confirmPath = "/v2/queues/stale/subscriptions/" + id + "/confirm";
        Eventually.await(
                "the confirmation request",
                Duration.ofSeconds(3),
                () -> receiver.calls("/mine").size() == 1);
        JsonNode mine = JSON.readTree(receiver.calls("/mine").get(0).body());

        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"subscriber\": \"" + receiver.url("/victim") + "\"}")
                .patch("/v2/queues/stale/subscriptions/" + id)
                .then()
                .statusCode(204);
        Eventually.await(
                "the new subscriber's request",
                Duration.ofSeconds(3),
                () -> receiver.calls("/victim").size() == 1);
        JsonNode victims = JSON.readTree(receiver.calls("/victim").get(0).body());
        // Sent within the same second, the two requests still differ: each expires later than the one before.
        assertTrue(
                victims.get("URL-Expires")
                                .asText()
                                .compareTo(mine.get("URL-Expires").asText())
                        > 0,
                mine.get("URL-Expires") + " then " + victims.get("URL-Expires"));

        confirmThrough(mine, "{\"confirmed\": true}", confirmPath).then().statusCode(404);
        Api.as(project).get("/v2/queues/stale/subscriptions/" + id).then().body("confirmed", equalTo(false));
        confirmThrough(victims, "{\"confirmed\": true}", confirmPath).then().statusCode(204);
        Api.as(project).get("/v2/queues/stale/subscriptions/" + id).then().body("confirmed", equalTo(true));
    }
}
