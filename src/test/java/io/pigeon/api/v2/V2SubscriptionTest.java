package io.pigeon.api.v2;

import static org.hamcrest.Matchers.allOf;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.lessThanOrEqualTo;
import static org.hamcrest.Matchers.matchesPattern;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pigeon.maintenance.Sweeper;
import io.pigeon.pool.PoolClients;
import io.pigeon.testing.Api;
import io.pigeon.testing.Db;
import io.pigeon.testing.DispatchClock;
import io.pigeon.testing.Eventually;
import io.pigeon.testing.Receiver;
import io.pigeon.testing.Receiver.Answer;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.ValidatableResponse;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** v2 subscriptions: the API, and delivery of posted messages to webhooks by the delivery engine. */
@QuarkusTest
class V2SubscriptionTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @RegisterExtension
    static final Receiver receiver = new Receiver();

    @Inject
    Pool pool;

    @Inject
    Sweeper sweeper;

    @Inject
    PoolClients pools;

    private final String project = Api.newProject();

    private ValidatableResponse subscribe(String queue, String document) {
        return Api.as(project)
                .contentType(ContentType.JSON)
                .body(document)
                .post("/v2/queues/" + queue + "/subscriptions")
                .then();
    }

    private String subscribeWebhook(String queue, String path, String extra) {
        return subscribe(queue, "{\"subscriber\": \"" + receiver.url(path) + "\", \"ttl\": 3600" + extra + "}")
                .statusCode(201)
                .extract()
                .jsonPath()
                .getString("subscription_id");
    }

    private void post(String queue, String messages) {
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"messages\": " + messages + "}")
                .post("/v2/queues/" + queue + "/messages")
                .then()
                .statusCode(201);
    }

    private static JsonNode json(String text) {
        try {
            return JSON.readTree(text);
        } catch (Exception e) {
            throw new AssertionError("not JSON: " + text, e);
        }
    }

    private ValidatableResponse confirm(String queue, String id, String document) {
        return Api.as(project)
                .contentType(ContentType.JSON)
                .body(document)
                .put("/v2/queues/" + queue + "/subscriptions/" + id + "/confirm")
                .then();
    }

    @Test
    void confirmationsAreCheckedAsZaqarChecksThem() {
        String id = subscribeWebhook("confirming", "/confirming", "");
        for (String bad : List.of("{}", "{\"confirmed\": \"yes\"}", "{\"confirmed\": 1}", "[]")) {
            confirm("confirming", id, bad)
                    .statusCode(400)
                    .body("title", equalTo("Invalid API request"))
                    .body("description", equalTo("The 'confirmed' should be boolean."));
        }
        Api.as(project)
                .put("/v2/queues/confirming/subscriptions/" + id + "/confirm")
                .then()
                .statusCode(400);
        confirm("confirming", "000000000000000000000fff", "{\"confirmed\": true}")
                .statusCode(404);
        confirm("confirming", "not-an-id", "{\"confirmed\": true}").statusCode(404);
        Api.as(Api.newProject())
                .contentType(ContentType.JSON)
                .body("{\"confirmed\": true}")
                .put("/v2/queues/confirming/subscriptions/" + id + "/confirm")
                .then()
                .statusCode(404);
        Api.as(project).get("/v2/queues/confirming/subscriptions/" + id).then().body("confirmed", equalTo(false));
    }

    @Test
    void createShowUpdateAndDelete() {
        String id = subscribe(
                        "orders",
                        "{\"subscriber\": \"http://localhost:9/hook\", \"ttl\": 600, "
                                + "\"options\": {\"name\": \"first\"}}")
                .statusCode(201)
                .header("Location", matchesPattern("/v2/queues/orders/subscriptions/[0-9a-f]{24}"))
                .body("subscription_id", matchesPattern("[0-9a-f]{24}"))
                .extract()
                .jsonPath()
                .getString("subscription_id");
        Api.as(project)
                .get("/v2/queues/orders/subscriptions/" + id)
                .then()
                .statusCode(200)
                .body("id", equalTo(id))
                .body("subscriber", equalTo("http://localhost:9/hook"))
                .body("source", equalTo("orders"))
                .body("ttl", equalTo(600))
                .body("options.name", equalTo("first"))
                .body("age", allOf(greaterThanOrEqualTo(0), lessThanOrEqualTo(5)))
                .body("confirmed", equalTo(false))
                .body("delivery", equalTo("webhook"));

        // One live subscription per subscriber and queue: as in Zaqar 15, subscribing again while it is unconfirmed
        // answers its id (ttl and options stay), and 409 once it is confirmed.
        subscribe("orders", "{\"subscriber\": \"http://localhost:9/hook\", \"ttl\": 900}")
                .statusCode(201)
                .body("subscription_id", equalTo(id));
        Api.as(project).get("/v2/queues/orders/subscriptions/" + id).then().body("ttl", equalTo(600));
        confirm("orders", id, "{\"confirmed\": true}")
                .statusCode(204)
                .header("Location", equalTo("/v2/queues/orders/subscriptions/" + id + "/confirm"));
        Api.as(project).get("/v2/queues/orders/subscriptions/" + id).then().body("confirmed", equalTo(true));
        subscribe("orders", "{\"subscriber\": \"http://localhost:9/hook\"}")
                .statusCode(409)
                .body("description", containsString("already exists"));
        confirm("orders", id, "{\"confirmed\": false}").statusCode(204);
        Api.as(project).get("/v2/queues/orders/subscriptions/" + id).then().body("confirmed", equalTo(false));
        subscribe("orders", "{\"subscriber\": \"http://localhost:9/hook\"}")
                .statusCode(201)
                .body("subscription_id", equalTo(id));

        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"ttl\": 7200, \"options\": {\"name\": \"second\"}}")
                .patch("/v2/queues/orders/subscriptions/" + id)
                .then()
                .statusCode(204);
        Api.as(project)
                .get("/v2/queues/orders/subscriptions/" + id)
                .then()
                .body("ttl", equalTo(7200))
                .body("options.name", equalTo("second"))
                .body("subscriber", equalTo("http://localhost:9/hook"));

        String other = subscribe("orders", "{\"subscriber\": \"http://localhost:9/other\"}")
                .statusCode(201)
                .extract()
                .jsonPath()
                .getString("subscription_id");
        Api.as(project).get("/v2/queues/orders/subscriptions/" + other).then().body("ttl", equalTo(3600));
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"subscriber\": \"http://localhost:9/hook\"}")
                .patch("/v2/queues/orders/subscriptions/" + other)
                .then()
                .statusCode(409);

        // Another project sees none of it.
        Api.as(Api.newProject())
                .get("/v2/queues/orders/subscriptions/" + id)
                .then()
                .statusCode(404);
        Api.as(Api.newProject()).get("/v2/queues/orders/subscriptions").then().body("subscriptions", empty());

        Api.as(project).delete("/v2/queues/orders/subscriptions/" + id).then().statusCode(204);
        Api.as(project)
                .get("/v2/queues/orders/subscriptions/" + id)
                .then()
                .statusCode(404)
                .body("title", equalTo("Not found"));
        Api.as(project).delete("/v2/queues/orders/subscriptions/" + id).then().statusCode(204);
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"ttl\": 700}")
                .patch("/v2/queues/orders/subscriptions/" + id)
                .then()
                .statusCode(404);
    }

    @Test
    void listingPagesThroughTheQueuesSubscriptions() {
        for (int i = 0; i < 3; i++) {
            subscribe("paged", "{\"subscriber\": \"http://localhost:9/s" + i + "\"}")
                    .statusCode(201);
        }
        subscribe("elsewhere", "{\"subscriber\": \"http://localhost:9/x\"}").statusCode(201);
        ValidatableResponse first = Api.as(project)
                .get("/v2/queues/paged/subscriptions?limit=2")
                .then()
                .statusCode(200)
                .body("subscriptions", hasSize(2))
                .body("subscriptions[0].subscriber", equalTo("http://localhost:9/s0"))
                .body("subscriptions[0].source", equalTo("paged"))
                .body("links[0].rel", equalTo("next"));
        String next = first.extract().jsonPath().getString("links[0].href");
        Api.as(project)
                .get(next)
                .then()
                .statusCode(200)
                .body("subscriptions", hasSize(1))
                .body("subscriptions[0].subscriber", equalTo("http://localhost:9/s2"));
        Api.as(project)
                .get("/v2/queues/paged/subscriptions?limit=21")
                .then()
                .statusCode(400)
                .body("description", containsString("20"));
    }

    @Test
    void invalidSubscriptionsAreRefusedAndNothingIsStored() {
        record Case(String document, String mentions) {}
        for (Case bad : List.of(
                new Case("{}", "No subscription"),
                new Case("[]", "must be a dict"),
                new Case("{\"ttl\": 600}", "Missing parameter subscriber"),
                new Case("{\"subscriber\": \"ftp://localhost/x\"}", "subscriber type"),
                new Case("{\"subscriber\": 42}", "subscriber must be a string"),
                new Case("{\"subscriber\": \"http://example.com/hook\"}", "allowed-targets"),
                new Case("{\"subscriber\": \"mailto:nobody\"}", "mailto"),
                new Case("{\"subscriber\": \"http://localhost/x\", \"ttl\": 59}", "at least 60"),
                new Case("{\"subscriber\": \"http://localhost/x\", \"ttl\": \"long\"}", "TTL must be an integer"),
                new Case("{\"subscriber\": \"http://localhost/x\", \"options\": [1]}", "Options must be a dict"),
                new Case(
                        "{\"subscriber\": \"http://localhost/x\", \"options\": {\"_retry_policy\": "
                                + "{\"retries_with_no_delay\": -1}}}",
                        "retries_with_no_delay must be an integer from 0 to 100"),
                new Case(
                        "{\"subscriber\": \"http://localhost/x\", \"options\": {\"_retry_policy\": "
                                + "{\"minimum_delay\": 40, \"maximum_delay\": 30}}}",
                        "must not exceed"),
                new Case(
                        "{\"subscriber\": \"http://localhost/x\", \"options\": {\"post_headers\": " + "{\"X-A\": 1}}}",
                        "post_headers"),
                // A template repeating the notification would multiply every call's size.
                new Case(
                        "{\"subscriber\": \"http://localhost/x\", \"options\": {\"post_data\": "
                                + "\"[\\\"$zaqar_message$\\\", \\\"$zaqar_message$\\\", \\\"$zaqar_message$\\\"]\"}}",
                        "at most 2 times"))) {
            subscribe("strict", bad.document()).statusCode(400).body("description", containsString(bad.mentions()));
        }
        Api.as(project).get("/v2/queues/strict/subscriptions").then().body("subscriptions", empty());
    }

    @Test
    void everyPostedMessageIsDeliveredToEachLiveWebhookAsZaqarSendsIt() {
        String first = "/sub/" + UUID.randomUUID();
        String second = "/sub/" + UUID.randomUUID();
        subscribeWebhook("events", first, ", \"options\": {\"post_headers\": {\"X-Token\": \"t0k3n\"}}");
        subscribeWebhook("events", second, "");
        post("events", "[{\"ttl\": 300, \"body\": {\"event\": \"created\"}}, {\"ttl\": 400, \"body\": [1, 2]}]");

        Eventually.await(
                "two notifications at each subscriber",
                Duration.ofSeconds(3),
                () -> receiver.calls(first).size() == 2
                        && receiver.calls(second).size() == 2);
        List<JsonNode> delivered = receiver.calls(first).stream()
                .map(call -> json(call.body()))
                .sorted(Comparator.comparingInt(node -> node.get("ttl").intValue()))
                .toList();
        assertEquals(
                json("{\"body\": {\"event\": \"created\"}, \"ttl\": 300, \"queue_name\": \"events\", "
                        + "\"Message_Type\": \"Notification\"}"),
                delivered.get(0));
        assertEquals(
                json("{\"body\": [1, 2], \"ttl\": 400, \"queue_name\": \"events\", "
                        + "\"Message_Type\": \"Notification\"}"),
                delivered.get(1));
        receiver.calls(first).forEach(call -> {
            assertEquals("POST", call.method());
            assertEquals("t0k3n", call.header("X-Token"));
            assertEquals("application/json", call.header("Content-Type"));
        });
        assertEquals(null, receiver.calls(second).get(0).header("X-Token"));

        // The messages themselves stay in the queue for its consumers.
        Api.as(project).get("/v2/queues/events/stats").then().body("messages.free", equalTo(2));
    }

    @Test
    void aFailedNotificationIsRetriedAsTheQueuesRetryPolicySays() {
        String path = "/sub/" + UUID.randomUUID();
        receiver.script(path, Answer.status(500), Answer.status(502), Answer.status(200));
        // Two immediate retries, then nothing: three calls in all.
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"_retry_policy\": {\"retries_with_no_delay\": 2, \"minimum_delay_retries\": 0, "
                        + "\"minimum_delay\": 1, \"maximum_delay\": 1, \"maximum_delay_retries\": 0}}")
                .put("/v2/queues/retrying")
                .then()
                .statusCode(201);
        subscribeWebhook("retrying", path, "");
        post("retrying", "[{\"ttl\": 300, \"body\": \"again\"}]");
        Eventually.await(
                "three calls", Duration.ofSeconds(3), () -> receiver.calls(path).size() == 3);
        Eventually.pause(Duration.ofMillis(500));
        assertEquals(3, receiver.calls(path).size());

        // With the policy spent, a notification that keeps failing ends in the dead state.
        String failing = "/sub/" + UUID.randomUUID();
        receiver.script(failing, Answer.status(500));
        subscribeWebhook("retrying", failing, "");
        post("retrying", "[{\"ttl\": 300, \"body\": \"doomed\"}]");
        Eventually.await(
                "the notification dead",
                Duration.ofSeconds(3),
                () -> Db.count(
                                pool,
                                "SELECT count(*) FROM dispatch_groups WHERE project = $1 AND state = 'dead' AND target = $2",
                                project,
                                receiver.url(failing))
                        == 1);
        assertEquals(3, receiver.calls(failing).size());
        Api.as(project)
                .get("/v3/dead-groups")
                .then()
                .body("groups", hasSize(1))
                .body("groups[0].target", equalTo(receiver.url(failing)));
    }

    @Test
    void mailtoSubscriptionsAreKeptButSayTheyAreNotDelivered() {
        String id = subscribe("mail", "{\"subscriber\": \"mailto:ops@example.com\"}")
                .statusCode(201)
                .extract()
                .jsonPath()
                .getString("subscription_id");
        Api.as(project)
                .get("/v2/queues/mail/subscriptions/" + id)
                .then()
                .body("subscriber", equalTo("mailto:ops@example.com"))
                .body("delivery", containsString("not delivered"));
        post("mail", "[{\"ttl\": 300, \"body\": 1}]");
        assertEquals(0, Db.count(pool, "SELECT count(*) FROM dispatch_groups WHERE project = $1", project));
    }

    @Test
    void aMailSenderOrSubjectWithALineBreakIsRefusedAndNothingStored() {
        for (String options : List.of(
                "{\"from\": \"x@example.com\\r\\nBcc: evil@example.com\"}",
                "{\"from\": \"evil@example.com>\\nRCPT TO:<x@y\"}",
                "{\"subject\": \"hello\\r\\nBcc: evil@example.com\"}",
                "{\"from\": \"x@example.org\\u2028Bcc: evil@example.com\"}",
                "{\"subject\": \"hello\\u202e\"}",
                "{\"subject\": \"\\ufeffhello\"}")) {
            subscribe("mail", "{\"subscriber\": \"mailto:ops@example.com\", \"options\": " + options + "}")
                    .statusCode(400)
                    .body("description", containsString("control characters"));
        }
        subscribe("mail", "{\"subscriber\": \"mailto:ops@example.com\", \"options\": {\"subject\": \"Orders\"}}")
                .statusCode(201);
        assertEquals(1, Db.count(pool, "SELECT count(*) FROM subscriptions WHERE project = $1", project));
    }

    /**
     * A subject given in the subscriber's URI ({@code ?subject=}, percent-encoded) and one given as
     * {@code options.subject} are held to one rule: the same texts are refused, for the same reason, on both paths.
     */
    @Test
    void aSubjectIsRefusedAlikeInTheAddressAndInTheOptions() {
        Map<String, String> refused = new LinkedHashMap<>();
        refused.put("a\r\nBcc: evil@example.com", "control characters");
        refused.put("a\nb", "control characters");
        refused.put("a\u0007b", "control characters");
        refused.put("a\u0085b", "control characters");
        refused.put("a\u2028Bcc: evil@example.com", "control characters");
        refused.put("a\u2029b", "control characters");
        refused.put("\u202eevil", "control characters");
        refused.put("\ufeffhello", "control characters");
        refused.put("a\u200bb", "control characters");
        refused.put("x".repeat(256), "at most 255 characters");
        for (Map.Entry<String, String> bad : refused.entrySet()) {
            String encoded =
                    URLEncoder.encode(bad.getKey(), StandardCharsets.UTF_8).replace("+", "%20");
            subscribe("mail", "{\"subscriber\": \"mailto:ops@example.com?subject=" + encoded + "\"}")
                    .statusCode(400)
                    .body("description", containsString("?subject="))
                    .body("description", containsString(bad.getValue()));
            ObjectNode options = JSON.createObjectNode().put("subject", bad.getKey());
            subscribe("mail", "{\"subscriber\": \"mailto:ops@example.com\", \"options\": " + options + "}")
                    .statusCode(400)
                    .body("description", containsString("options.subject"))
                    .body("description", containsString(bad.getValue()));
        }
        assertEquals(0, Db.count(pool, "SELECT count(*) FROM subscriptions WHERE project = $1", project));
        // At the bound, and plain text, both paths accept.
        String longest = "y".repeat(255);
        subscribe("mail", "{\"subscriber\": \"mailto:ops@example.com?subject=" + longest + "\"}")
                .statusCode(201);
        subscribe(
                        "mail",
                        "{\"subscriber\": \"mailto:ops@example.org\", \"options\": {\"subject\": \"" + longest + "\"}}")
                .statusCode(201);
    }

    @Test
    void expiredSubscriptionsAreNeitherShownNorDelivered() {
        String path = "/sub/" + UUID.randomUUID();
        String id = subscribeWebhook("brief", path, "");
        Db.run(pool, "UPDATE subscriptions SET expires_at = now() - interval '1 second' WHERE project = $1", project);
        Api.as(project).get("/v2/queues/brief/subscriptions/" + id).then().statusCode(404);
        sweeper.sweep().await().indefinitely();
        assertEquals(0, Db.count(pool, "SELECT count(*) FROM subscriptions WHERE project = $1", project));
        post("brief", "[{\"ttl\": 300, \"body\": 1}]");
        DispatchClock.callEverythingDue(pools, project, receiver);
        assertEquals(0, receiver.calls(path).size());
        // The same subscriber may subscribe again.
        subscribeWebhook("brief", path, "");
    }

    @Test
    void deletingTheQueueOrPurgingSubscriptionsRemovesThem() {
        subscribe("gone", "{\"subscriber\": \"http://localhost:9/a\"}").statusCode(201);
        Api.as(project).delete("/v2/queues/gone").then().statusCode(204);
        Api.as(project).get("/v2/queues/gone/subscriptions").then().body("subscriptions", empty());

        subscribe("purged", "{\"subscriber\": \"http://localhost:9/a\"}").statusCode(201);
        post("purged", "[{\"ttl\": 300, \"body\": 1}]");
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"resource_types\": [\"subscriptions\"]}")
                .post("/v2/queues/purged/purge")
                .then()
                .statusCode(204);
        Api.as(project).get("/v2/queues/purged/subscriptions").then().body("subscriptions", empty());
        Api.as(project).get("/v2/queues/purged/stats").then().body("messages.free", equalTo(1));
    }

    /** Deleting a subscription, purging a queue's subscriptions or deleting the queue cancels what is still owed. */
    @Test
    void deletingASubscriptionOrItsQueueCancelsItsPendingNotifications() {
        for (String how : List.of("subscription", "purge", "queue")) {
            String queue = "cancel-" + how;
            String path = "/cancel/" + UUID.randomUUID();
            // Fails every time: without the delete it would be retried every second.
            receiver.script(path, Answer.status(500));
            String id = subscribeWebhook(
                    queue,
                    path,
                    ", \"options\": {\"_retry_policy\": {\"retries_with_no_delay\": 0, "
                            + "\"minimum_delay_retries\": 20, \"minimum_delay\": 1, \"maximum_delay\": 1}}");
            post(queue, "[{\"ttl\": 600, \"body\": \"" + how + "\"}]");
            Eventually.await(
                    "the first call (" + how + ")",
                    Duration.ofSeconds(5),
                    () -> receiver.calls(path).size() >= 1);
            switch (how) {
                case "subscription" -> Api.as(project)
                        .delete("/v2/queues/" + queue + "/subscriptions/" + id)
                        .then()
                        .statusCode(204);
                case "purge" -> Api.as(project)
                        .contentType(ContentType.JSON)
                        .body("{\"resource_types\": [\"subscriptions\"]}")
                        .post("/v2/queues/" + queue + "/purge")
                        .then()
                        .statusCode(204);
                default -> Api.as(project).delete("/v2/queues/" + queue).then().statusCode(204);
            }
            assertEquals(
                    0,
                    Db.count(
                            pool,
                            "SELECT count(*) FROM dispatch_groups WHERE project = $1 AND state = 'pending' "
                                    + "AND merge_key = '-subscription:' || $2",
                            project,
                            id),
                    how);
            int calls = receiver.calls(path).size();
            DispatchClock.callEverythingDue(pools, project, receiver);
            assertEquals(calls, receiver.calls(path).size(), "a cancelled notification was retried (" + how + ")");
        }
    }
}
