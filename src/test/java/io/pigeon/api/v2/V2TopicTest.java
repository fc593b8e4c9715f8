package io.pigeon.api.v2;

import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasKey;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pigeon.testing.Api;
import io.pigeon.testing.Db;
import io.pigeon.testing.Eventually;
import io.pigeon.testing.Messages;
import io.pigeon.testing.Receiver;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * v2 topics, as Zaqar 15 routes them (its own handlers for messages and subscriptions under a topic fail): CRUD,
 * listing, stats, purge, messages posted to a topic delivered to its subscriptions, and subscriptions with confirm.
 * A topic and a queue of the same name are apart: neither sees the other's metadata, messages or subscribers.
 */
@QuarkusTest
class V2TopicTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String JSON_PATCH = "application/openstack-messaging-v2.0-json-patch";

    @RegisterExtension
    static final Receiver receiver = new Receiver();

    @Inject
    Pool pool;

    private final String project = Api.newProject();

    private Response put(String path, String metadata) {
        return Api.as(project).contentType(ContentType.JSON).body(metadata).put(path);
    }

    private List<String> post(String path, String document) {
        return Api.as(project)
                .contentType(ContentType.JSON)
                .body(document)
                .post(path)
                .then()
                .statusCode(201)
                .extract()
                .jsonPath()
                .getList("resources");
    }

    private void subscribe(String path, String hook) {
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"subscriber\": \"" + receiver.url(hook) + "\", \"ttl\": 3600}")
                .post(path + "/subscriptions")
                .then()
                .statusCode(201);
    }

    @Test
    void aTopicIsCreatedReadPatchedAndDeletedWithZaqarsAnswers() {
        put("/v2/topics/news.eu", "{\"_default_message_ttl\": 120, \"owner\": \"me\"}")
                .then()
                .statusCode(201)
                .header("Location", "/v2/topics/news.eu");
        put("/v2/topics/news.eu", "{}").then().statusCode(204).header("Location", "/v2/topics/news.eu");
        // A topic shows the reserved attributes of posting only (Zaqar's three).
        Api.as(project)
                .get("/v2/topics/news.eu")
                .then()
                .statusCode(200)
                .body("owner", equalTo("me"))
                .body("_default_message_ttl", equalTo(120))
                .body("_max_messages_post_size", equalTo(262144))
                .body("_default_message_delay", equalTo(0))
                .body("$", not(hasKey("_dead_letter_queue")))
                .body("$", not(hasKey("_max_claim_count")));
        Api.as(project)
                .get("/v2/topics/never-made")
                .then()
                .statusCode(200)
                .body("_default_message_ttl", equalTo(3600))
                .body("$", not(hasKey("owner")));

        Api.as(project)
                .contentType(JSON_PATCH)
                .body("[{\"op\": \"replace\", \"path\": \"/metadata/owner\", \"value\": \"you\"}]"
                        .getBytes(StandardCharsets.UTF_8))
                .patch("/v2/topics/news.eu")
                .then()
                .statusCode(200)
                .body("owner", equalTo("you"));
        Api.as(project)
                .contentType(JSON_PATCH)
                .body("[{\"op\": \"add\", \"path\": \"/metadata/_default_message_ttl\", \"value\": 59}]"
                        .getBytes(StandardCharsets.UTF_8))
                .patch("/v2/topics/news.eu")
                .then()
                .statusCode(400)
                .body("description", equalTo("_default_message_ttl must be an integer from 60 to 1209600."));
        Api.as(project)
                .contentType(JSON_PATCH)
                .body("[{\"op\": \"add\", \"path\": \"/metadata/a\", \"value\": 1}]".getBytes(StandardCharsets.UTF_8))
                .patch("/v2/topics/never-made")
                .then()
                .statusCode(404)
                .body("description", equalTo("Topic never-made does not exist for project " + project));

        Api.as(project).delete("/v2/topics/news.eu").then().statusCode(204);
        Api.as(project).delete("/v2/topics/news.eu").then().statusCode(204);
        Api.as(project).get("/v2/topics/news.eu").then().statusCode(200).body("$", not(hasKey("owner")));
    }

    @Test
    void namesAreCheckedAsZaqarChecksTopicsAndQueuesApart() {
        put("/v2/topics/bad$name", "{}")
                .then()
                .statusCode(400)
                .body("title", equalTo("Invalid topic identification"))
                .body("description", startsWith("The format of the submitted topic name or project id is not valid."));
        put("/v2/topics/" + "t".repeat(65), "{}")
                .then()
                .statusCode(400)
                .body("title", equalTo("Invalid topic identification"));
        // A dot is a topic's, not a queue's; '~' (how topics are stored) is neither's.
        put("/v2/topics/a.b", "{}").then().statusCode(201);
        put("/v2/queues/a.b", "{}").then().statusCode(400).body("title", equalTo("Invalid queue identification"));
        put("/v2/queues/~a.b", "{}").then().statusCode(400).body("title", equalTo("Invalid queue identification"));
        put("/v2/topics/~a.b", "{}").then().statusCode(400).body("title", equalTo("Invalid topic identification"));
        // Topics are v2 only.
        Api.as(project).get("/v1.1/topics").then().statusCode(404);
        Api.as(project).get("/v1.1/topics/a.b").then().statusCode(404);
        // No claims and no share under a topic.
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{}")
                .post("/v2/topics/a.b/claims")
                .then()
                .statusCode(404);
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{}")
                .post("/v2/topics/a.b/share")
                .then()
                .statusCode(404);
    }

    @Test
    void topicsAndQueuesAreListedApartInNameOrderWithMarkers() {
        for (String name : List.of("c", "a", "b")) {
            put("/v2/topics/" + name, "{\"n\": \"" + name + "\"}").then().statusCode(201);
        }
        put("/v2/queues/a", "{}").then().statusCode(201);
        put("/v2/queues/z", "{}").then().statusCode(201);

        Response first = Api.as(project).get("/v2/topics?limit=2&detailed=true");
        first.then()
                .statusCode(200)
                .body("topics.name", contains("a", "b"))
                .body("topics.href", contains("/v2/topics/a", "/v2/topics/b"))
                .body("topics[0].metadata.n", equalTo("a"))
                .body("topics[0].metadata._default_message_delay", equalTo(0))
                .body("$", not(hasKey("count")));
        String next = first.jsonPath().getString("links[0].href");
        assertEquals("/v2/topics?marker=b&limit=2&detailed=true", next);
        Api.as(project).get(next).then().statusCode(200).body("topics.name", contains("c"));
        Api.as(project)
                .get("/v2/topics?marker=c")
                .then()
                .statusCode(200)
                .body("topics", empty())
                .body("links", empty());
        Api.as(project).get("/v2/topics?name=b").then().statusCode(200).body("topics.name", contains("b"));

        Api.as(project)
                .get("/v2/queues?with_count=true")
                .then()
                .statusCode(200)
                .body("queues.name", contains("a", "z"))
                .body("count", equalTo(2));
        Api.as(project).get("/v1/queues").then().statusCode(200).body("queues.name", contains("a", "z"));
        Api.as(Api.newProject()).get("/v2/topics").then().statusCode(200).body("topics", empty());
    }

    @Test
    void messagesPostedToATopicGoToItsSubscriptionsAndNotToTheQueueOfTheSameName() throws Exception {
        subscribe("/v2/topics/alerts", "/topic-hook");
        subscribe("/v2/queues/alerts", "/queue-hook");
        Response posted = Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"messages\": [{\"body\": {\"level\": \"high\"}}, {\"body\": \"disk full\", \"ttl\": 300}]}")
                .post("/v2/topics/alerts/messages");
        posted.then().statusCode(201).header("Location", startsWith("/v2/topics/alerts/messages?ids="));
        List<String> hrefs = posted.jsonPath().getList("resources");
        assertTrue(hrefs.stream().allMatch(href -> href.startsWith("/v2/topics/alerts/messages/")), hrefs.toString());

        Eventually.await(
                "two notifications",
                Duration.ofSeconds(5),
                () -> receiver.calls("/topic-hook").size() == 2);
        List<JsonNode> sent = new ArrayList<>();
        for (Receiver.Call call : receiver.calls("/topic-hook")) {
            sent.add(JSON.readTree(call.body()));
        }
        assertTrue(
                sent.stream()
                        .allMatch(n -> n.get("queue_name").asText().equals("alerts")
                                && n.get("Message_Type").asText().equals("Notification")),
                sent.toString());
        JsonNode high = JSON.readTree("{\"level\": \"high\"}");
        assertTrue(sent.stream().anyMatch(n -> n.get("body").equals(high)), sent.toString());
        assertTrue(
                sent.stream()
                        .anyMatch(n -> n.get("body").asText().equals("disk full")
                                && n.get("ttl").asInt() == 300),
                sent.toString());

        // Stats, reads and deletes under the topic; nothing in the queue of the same name, whose subscriber hears
        // nothing.
        Api.as(project)
                .get("/v2/topics/alerts/stats")
                .then()
                .statusCode(200)
                .body("messages.total", equalTo(2))
                .body("messages.free", equalTo(2))
                .body("messages.claimed", equalTo(0))
                .body("messages.oldest.href", equalTo(hrefs.get(0)));
        Api.as(project).get("/v2/queues/alerts/stats").then().statusCode(200).body("messages.total", equalTo(0));
        Api.as(project)
                .get(hrefs.get(1))
                .then()
                .statusCode(200)
                .body("body", equalTo("disk full"))
                .body("href", equalTo(hrefs.get(1)));
        Api.as(project)
                .get("/v2/topics/alerts/messages?echo=true")
                .then()
                .statusCode(200)
                .body("messages.href", contains(hrefs.get(0), hrefs.get(1)));
        Api.as(project)
                .get("/v2/queues/alerts/messages/" + Messages.id(hrefs.get(0)))
                .then()
                .statusCode(404);
        Api.as(project)
                .delete("/v2/topics/alerts/messages?pop=1")
                .then()
                .statusCode(400)
                .body("description", equalTo("A topic's messages are not popped: they go to its subscriptions."));
        Api.as(project).delete(hrefs.get(0)).then().statusCode(204);
        Api.as(project).get("/v2/topics/alerts/stats").then().statusCode(200).body("messages.total", equalTo(1));
        Thread.sleep(300);
        assertEquals(
                0, receiver.calls("/queue-hook").size(), "the queue's subscriber was notified of a topic's message");
    }

    @Test
    void subscriptionsOfATopicAreItsOwnAndConfirmable() {
        Response created = Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"subscriber\": \"" + receiver.url("/sub") + "\", \"ttl\": 3600, \"options\": {\"k\": 1}}")
                .post("/v2/topics/jobs/subscriptions");
        created.then().statusCode(201).header("Location", startsWith("/v2/topics/jobs/subscriptions/"));
        String id = created.jsonPath().getString("subscription_id");
        Api.as(project)
                .get("/v2/topics/jobs/subscriptions/" + id)
                .then()
                .statusCode(200)
                .body("source", equalTo("jobs"))
                .body("options.k", equalTo(1))
                .body("confirmed", equalTo(false));
        Api.as(project)
                .get("/v2/topics/jobs/subscriptions")
                .then()
                .statusCode(200)
                .body("subscriptions.id", contains(id));
        Api.as(project)
                .get("/v2/queues/jobs/subscriptions")
                .then()
                .statusCode(200)
                .body("subscriptions", empty());
        Api.as(project).get("/v2/queues/jobs/subscriptions/" + id).then().statusCode(404);
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"confirmed\": true}")
                .put("/v2/topics/jobs/subscriptions/" + id + "/confirm")
                .then()
                .statusCode(204);
        Api.as(project)
                .get("/v2/topics/jobs/subscriptions/" + id)
                .then()
                .statusCode(200)
                .body("confirmed", equalTo(true));
        // Subscribing the same subscriber again once it has confirmed is a conflict, as for a queue.
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"subscriber\": \"" + receiver.url("/sub") + "\"}")
                .post("/v2/topics/jobs/subscriptions")
                .then()
                .statusCode(409);
    }

    @Test
    void purgeAndDeleteTakeTheTopicsMessagesAndSubscriptions() {
        subscribe("/v2/topics/logs", "/logs-hook");
        post("/v2/topics/logs/messages", "{\"messages\": [{\"body\": 1}, {\"body\": 2}]}");
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"resource_types\": [\"messages\"]}")
                .post("/v2/topics/logs/purge")
                .then()
                .statusCode(204);
        Api.as(project).get("/v2/topics/logs/stats").then().statusCode(200).body("messages.total", equalTo(0));
        Api.as(project)
                .get("/v2/topics/logs/subscriptions")
                .then()
                .statusCode(200)
                .body("subscriptions.size()", equalTo(1));
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"resource_types\": [\"subscriptions\"]}")
                .post("/v2/topics/logs/purge")
                .then()
                .statusCode(204);
        Api.as(project)
                .get("/v2/topics/logs/subscriptions")
                .then()
                .statusCode(200)
                .body("subscriptions", empty());

        subscribe("/v2/topics/logs", "/logs-hook");
        post("/v2/topics/logs/messages", "{\"messages\": [{\"body\": 3}]}");
        Api.as(project).delete("/v2/topics/logs").then().statusCode(204);
        assertEquals(0, Db.count(pool, "SELECT count(*) FROM subscriptions WHERE project = $1", project));
        assertEquals(0, Db.count(pool, "SELECT count(*) FROM queues WHERE project = $1", project));
        assertEquals(
                0,
                Db.count(
                        pool,
                        "SELECT count(*) FROM messages m JOIN queues q ON q.id = m.queue_id WHERE q.project = $1",
                        project));
    }
}
