package io.pigeon.api.v2;

import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasKey;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.matchesPattern;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pigeon.testing.Api;
import io.pigeon.testing.Db;
import io.pigeon.testing.Messages;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

@QuarkusTest
class V2MessageTest {

    private static final String OTHER_CLIENT = "5ee15446-0000-4000-8000-000000000002";

    @Inject
    Pool pool;

    private final String project = Api.newProject();
    private final String messages = "/v2/queues/demo-queue/messages";

    private Response post(String queue, String document) {
        return Api.as(project).contentType(ContentType.JSON).body(document).post("/v2/queues/" + queue + "/messages");
    }

    private static String md5(String text) throws Exception {
        return "MD5:"
                + HexFormat.of()
                        .formatHex(MessageDigest.getInstance("MD5").digest(text.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void postingCreatesTheQueueAndAnswersResources() {
        Response posted = post(
                "demo-queue",
                "{\"messages\": [{\"ttl\": 300, \"body\": {\"event\": \"one\"}},"
                        + " {\"ttl\": 600, \"body\": \"a string body\"}]}");
        posted.then()
                .statusCode(201)
                .body("resources", hasSize(2))
                .body("$", not(hasKey("partial")))
                .body("resources[0]", matchesPattern("/v2/queues/demo-queue/messages/[0-9a-f]{24}"));
        List<String> hrefs = posted.jsonPath().getList("resources", String.class);
        assertEquals(
                messages + "?ids=" + hrefs.stream().map(Messages::id).collect(Collectors.joining(",")),
                posted.header("Location"));
        Api.as(project).get("/v2/queues").then().body("queues.name", contains("demo-queue"));
    }

    @Test
    void listedMessagesCarryIdHrefAndUpstreamChecksum() throws Exception {
        String href = post(
                        "demo-queue",
                        "{\"messages\": [{\"ttl\": 300, \"body\": {\"event\": \"one\", \"n\": [1, 2]}},"
                                + " {\"ttl\": 300, \"body\": \"plain\"}]}")
                .jsonPath()
                .getString("resources[0]");
        Api.as(project, OTHER_CLIENT)
                .get(messages)
                .then()
                .statusCode(200)
                .body("messages[0].id", equalTo(Messages.id(href)))
                .body("messages[0].href", equalTo(href))
                .body("messages[0].ttl", equalTo(300))
                .body("messages[0].body.event", equalTo("one"))
                // Python's json.dumps layout, as Zaqar hashes it: a string body with its quotes.
                .body("messages[0].checksum", equalTo(md5("{\"event\": \"one\", \"n\": [1, 2]}")))
                .body("messages[1].checksum", equalTo(md5("\"plain\"")));
        Api.as(project)
                .get(href)
                .then()
                .statusCode(200)
                .body("id", equalTo(Messages.id(href)))
                .body("checksum", equalTo(md5("{\"event\": \"one\", \"n\": [1, 2]}")));
    }

    @Test
    void emptyAndAbsentQueuesListAsEmpty() {
        Api.as(project)
                .get(messages)
                .then()
                .statusCode(200)
                .body("messages", equalTo(List.of()))
                .body("links", equalTo(List.of()));
        post("demo-queue", "{\"messages\": [{\"ttl\": 60, \"body\": 1}]}");
        // The client's own message is hidden without echo.
        Api.as(project).get(messages).then().statusCode(200).body("messages", hasSize(0));
        Api.as(project).get(messages + "?echo=true").then().body("messages", hasSize(1));
    }

    @Test
    void pagingWithNextLinks() {
        post(
                "demo-queue",
                "{\"messages\": ["
                        + IntStream.range(0, 5)
                                .mapToObj(i -> "{\"ttl\": 300, \"body\": " + i + "}")
                                .collect(Collectors.joining(","))
                        + "]}");
        Response first = Api.as(project).get(messages + "?echo=true&limit=2");
        first.then().body("messages.body", contains(0, 1));
        String next = first.jsonPath().getString("links[0].href");
        Api.as(project).get(next).then().body("messages.body", contains(2, 3));
    }

    @Test
    void ttlAndDelayDefaultFromTheQueue() {
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"_default_message_ttl\": 120}")
                .put("/v2/queues/q");
        String href =
                post("q", "{\"messages\": [{\"body\": \"x\"}]}").jsonPath().getString("resources[0]");
        Api.as(project).get(href).then().body("ttl", equalTo(120));
        // A queue without its own default uses the service's (3600).
        String other =
                post("fresh", "{\"messages\": [{\"body\": \"x\"}]}").jsonPath().getString("resources[0]");
        Api.as(project).get(other).then().body("ttl", equalTo(3600));

        Api.as(project)
                .contentType("application/openstack-messaging-v2.0-json-patch")
                .body("[{\"op\": \"add\", \"path\": \"/metadata/_default_message_delay\", \"value\": 30}]"
                        .getBytes(StandardCharsets.UTF_8))
                .patch("/v2/queues/q")
                .then()
                .statusCode(200);
        post("q", "{\"messages\": [{\"ttl\": 60, \"body\": \"delayed by default\"}]}");
        Api.as(project).get("/v2/queues/q/messages?echo=true").then().body("messages.body", contains("x"));
    }

    @Test
    void delayedMessagesStayInvisibleToListingAndClaimsUntilTheirDelayPasses() {
        String delayed = post("demo-queue", "{\"messages\": [{\"ttl\": 300, \"delay\": 60, \"body\": \"later\"}]}")
                .jsonPath()
                .getString("resources[0]");
        post("demo-queue", "{\"messages\": [{\"ttl\": 300, \"body\": \"now\"}]}");

        Api.as(project).get(messages + "?echo=true").then().body("messages.body", contains("now"));
        Api.as(project)
                .get(messages + "?echo=true&include_delayed=true")
                .then()
                .body("messages.body", contains("later", "now"));
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{}")
                .post("/v2/queues/demo-queue/claims?limit=5")
                .then()
                .statusCode(201)
                .body("messages.body", contains("now"));
        // Get by id still finds it.
        Api.as(project).get(delayed).then().statusCode(200).body("body", equalTo("later"));

        Db.run(
                pool,
                "UPDATE messages SET visible_at = now() - interval '1 second' WHERE id = $1",
                Messages.rowId(delayed));
        Api.as(project).get(messages + "?echo=true").then().body("messages.body", contains("later"));
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{}")
                .post("/v2/queues/demo-queue/claims")
                .then()
                .statusCode(201)
                .body("messages.body", contains("later"));
    }

    @Test
    void getByIds() {
        List<String> hrefs = post(
                        "demo-queue", "{\"messages\": [{\"ttl\": 300, \"body\": 0}, {\"ttl\": 300, \"body\": 1}]}")
                .jsonPath()
                .getList("resources", String.class);
        Api.as(project)
                .get(messages + "?ids=" + Messages.id(hrefs.get(1)) + ",junk")
                .then()
                .statusCode(200)
                .body("messages.body", contains(1))
                .body("$", not(hasKey("links")));
        Api.as(project)
                .get(messages + "?ids=5c6c9d8a1b7d4a3e2f1a0b9c")
                .then()
                .statusCode(404)
                .body("title", equalTo("Not found"))
                .body(
                        "description",
                        equalTo("No messages with IDs: ['5c6c9d8a1b7d4a3e2f1a0b9c'] found in the queue "
                                + "demo-queue for project " + project + "."));
        Api.as(project)
                .get(messages + "/nonexistent")
                .then()
                .statusCode(404)
                .body(
                        "description",
                        equalTo("Message nonexistent does not exist in queue demo-queue for project " + project));
        String twentyOne =
                IntStream.range(0, 21).mapToObj(i -> String.format("%024x", i)).collect(Collectors.joining(","));
        Api.as(project).get(messages + "?ids=" + twentyOne).then().statusCode(400);
    }

    /** python-zaqarclient sends list parameters repeated ({@code ids=a&ids=b}); Zaqar reads both forms. */
    @Test
    void idsAreReadInTheCommaAndTheRepeatedForm() {
        List<String> ids = post(
                        "demo-queue",
                        "{\"messages\": [{\"ttl\": 300, \"body\": 0}, {\"ttl\": 300, \"body\": 1},"
                                + " {\"ttl\": 300, \"body\": 2}]}")
                .jsonPath()
                .getList("resources", String.class)
                .stream()
                .map(Messages::id)
                .toList();
        Api.as(project)
                .get(messages + "?ids=" + ids.get(0) + "&ids=" + ids.get(1) + "&ids=" + ids.get(2))
                .then()
                .statusCode(200)
                .body("messages.body", contains(0, 1, 2));
        Api.as(project)
                .get(messages + "?ids=" + ids.get(0) + "," + ids.get(1) + "&ids=" + ids.get(2))
                .then()
                .statusCode(200)
                .body("messages.body", contains(0, 1, 2));
        Api.as(project)
                .delete(messages + "?ids=" + ids.get(0) + "&ids=" + ids.get(2))
                .then()
                .statusCode(204);
        Api.as(project).get(messages + "?echo=true").then().body("messages.body", contains(1));
    }

    @Test
    void aMarkerThatNamesNoMessageListsAnEmptyPage() {
        post("demo-queue", "{\"messages\": [{\"ttl\": 300, \"body\": 0}]}");
        Api.as(project)
                .get(messages + "?echo=true&marker=not-a-marker")
                .then()
                .statusCode(200)
                .body("messages", equalTo(List.of()))
                .body("links", equalTo(List.of()));
    }

    @Test
    void deleteRulesMatchV1() {
        List<String> hrefs = post(
                        "demo-queue", "{\"messages\": [{\"ttl\": 300, \"body\": 0}, {\"ttl\": 300, \"body\": 1}]}")
                .jsonPath()
                .getList("resources", String.class);
        String claimed = Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"ttl\": 300, \"grace\": 60}")
                .post("/v2/queues/demo-queue/claims?limit=1")
                .jsonPath()
                .getString("messages[0].href");
        Api.as(project).delete(hrefs.get(0)).then().statusCode(403).body("title", equalTo("Unable to delete"));
        Api.as(project).delete(hrefs.get(0) + "?claim_id=not-a-claim").then().statusCode(400);
        Api.as(project)
                .delete(hrefs.get(1) + "?claim_id=" + Messages.claimId(claimed))
                .then()
                .statusCode(400)
                .body("description", equalTo("A claim was specified, but the message is not currently claimed."));
        Api.as(project).delete(claimed).then().statusCode(204);
        Api.as(project).get(hrefs.get(0)).then().statusCode(404);
        Api.as(project).delete(messages + "/5c6c9d8a1b7d4a3e2f1a0b9c").then().statusCode(204);
        Api.as(project)
                .delete(messages + "?ids=" + Messages.id(hrefs.get(1)))
                .then()
                .statusCode(204);
        Api.as(project).get("/v2/queues/demo-queue/stats").then().body("messages.total", equalTo(0));
    }

    @Test
    void popTakesTheOldestFreeMessages() {
        post(
                "demo-queue",
                "{\"messages\": [{\"ttl\": 300, \"body\": 0}, {\"ttl\": 300, \"body\": 1}, {\"ttl\": 300, \"body\": 2}]}");
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{}")
                .post("/v2/queues/demo-queue/claims?limit=1")
                .then()
                .statusCode(201);
        Api.as(project)
                .delete(messages + "?pop=5")
                .then()
                .statusCode(200)
                .body("messages.body", contains(1, 2))
                .body("messages[0].id", matchesPattern("[0-9a-f]{24}"));
        Api.as(project).delete(messages + "?pop=1").then().statusCode(200).body("messages", hasSize(0));
        Api.as(project)
                .get("/v2/queues/demo-queue/stats")
                .then()
                .body("messages.total", equalTo(1))
                .body("messages.claimed", equalTo(1));

        Api.as(project)
                .delete(messages + "?pop=1&ids=5c6c9d8a1b7d4a3e2f1a0b9c")
                .then()
                .statusCode(400)
                .body("description", equalTo("pop and id params cannot be present together in the delete request."));
        Api.as(project)
                .delete(messages)
                .then()
                .statusCode(400)
                .body(
                        "description",
                        equalTo(
                                "The request should have either \"ids\" or \"pop\" parameter in the request, to be able to delete."));
        for (String pop : List.of("0", "21")) {
            Api.as(project)
                    .delete(messages + "?pop=" + pop)
                    .then()
                    .statusCode(400)
                    .body("description", equalTo("Pop value must be at least 1 and may not be greater than 20."));
        }
        Api.as(project).delete(messages + "?pop=x").then().statusCode(400).body("title", equalTo("Invalid parameter"));
    }

    @Test
    void postDocumentErrors() {
        Api.as(project).put("/v2/queues/errors-queue");
        record Case(String document, String title, String description) {}
        for (Case c : List.of(
                new Case(
                        "{\"messages\": [{\"ttl\": 59, \"body\": \"x\"}]}",
                        "Invalid API request",
                        "The TTL for a message may not exceed 1209600 seconds, and must be at least 60 seconds long."),
                new Case(
                        "{\"messages\": [{\"ttl\": 1209601, \"body\": \"x\"}]}",
                        "Invalid API request",
                        "The TTL for a message may not exceed 1209600 seconds, and must be at least 60 seconds long."),
                new Case(
                        "{\"messages\": [{\"ttl\": \"abc\", \"body\": \"x\"}]}",
                        "Invalid request body",
                        "The value of the \"ttl\" field must be a int."),
                new Case("{\"messages\": [{\"ttl\": 60}]}", "Invalid request body", "Missing \"body\" field."),
                new Case(
                        "{\"messages\": [{\"ttl\": 60, \"delay\": 901, \"body\": 1}]}",
                        "Invalid API request",
                        "The delay for a message may not exceed 900 seconds, and must be at least 0 seconds long."),
                new Case(
                        "{\"messages\": [{\"ttl\": 60, \"delay\": -1, \"body\": 1}]}",
                        "Invalid API request",
                        "The delay for a message may not exceed 900 seconds, and must be at least 0 seconds long."),
                new Case("{\"messages\": []}", "Invalid API request", "No messages to enqueu."),
                new Case(
                        "[{\"ttl\": 60, \"body\": \"x\"}]",
                        "Invalid API request",
                        "No messages were found in the request body."),
                new Case(
                        "{\"ttl\": 60, \"body\": \"x\"}",
                        "Invalid API request",
                        "No messages were found in the request body."),
                new Case("42", "Invalid request body", "Request body could not be parsed."),
                new Case(
                        "{\"messages\": [ {\"ttl\": 60, \"body\": ",
                        "Invalid request body",
                        "Request body could not be parsed."))) {
            post("errors-queue", c.document())
                    .then()
                    .statusCode(400)
                    .body("title", equalTo(c.title()))
                    .body("description", equalTo(c.description()));
        }
        String prefix = "{\"messages\": [{\"ttl\": 60, \"body\": \"";
        post("errors-queue", prefix + "a".repeat(262145 - prefix.length() - 4) + "\"}]}")
                .then()
                .statusCode(400)
                .body("description", equalTo("Message collection size is too large. Max size 262144"));
        Api.as(project).get("/v2/queues/errors-queue/stats").then().body("messages.total", equalTo(0));
        // Posting to a refused document created no queue either.
        post("never-made", "[1]").then().statusCode(400);
        Api.as(project).get("/v2/queues").then().body("queues.name", contains("errors-queue"));
    }

    @Test
    void aQueuesOwnPostSizeLimitApplies() {
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"_max_messages_post_size\": 100}")
                .put("/v2/queues/small");
        post("small", "{\"messages\": [{\"ttl\": 60, \"body\": \"" + "a".repeat(100) + "\"}]}")
                .then()
                .statusCode(400)
                .body("description", equalTo("Message collection size is too large. Max size 100"));
        post("small", "{\"messages\": [{\"ttl\": 60, \"body\": 1}]}").then().statusCode(201);
        Api.as(project).get("/v2/queues/small/stats").then().body("messages.total", equalTo(1));
    }

    @Test
    void twentyOneMessagesInOnePost() {
        post(
                        "demo-queue",
                        "{\"messages\": ["
                                + IntStream.range(0, 21)
                                        .mapToObj(i -> "{\"ttl\": 60, \"body\": " + i + "}")
                                        .collect(Collectors.joining(","))
                                + "]}")
                .then()
                .statusCode(201)
                .body("resources", hasSize(21));
    }

    @Test
    void listLimits() {
        for (String limit : List.of("0", "21")) {
            Api.as(project)
                    .get(messages + "?limit=" + limit)
                    .then()
                    .statusCode(400)
                    .body("description", equalTo("Limit must be at least 1 and may not be greater than 20."));
        }
        Api.as(project).get(messages + "?limit=abc").then().statusCode(400).body("title", equalTo("Invalid parameter"));
        Api.as(project)
                .contentType("application/x-www-form-urlencoded")
                .body("{\"messages\": []}")
                .post(messages)
                .then()
                .statusCode(400)
                .body("title", equalTo("Invalid Content-Type"));
    }

    @Test
    void includeClaimedListsClaimedMessagesToo() {
        post("demo-queue", "{\"messages\": [{\"ttl\": 300, \"body\": 0}, {\"ttl\": 300, \"body\": 1}]}");
        Api.as(project).contentType(ContentType.JSON).body("{}").post("/v2/queues/demo-queue/claims?limit=1");
        Api.as(project)
                .get(messages + "?include_claimed=true&echo=true")
                .then()
                .statusCode(200)
                .body("messages.body", contains(0, 1));
        Api.as(project).get(messages + "?echo=true").then().body("messages.body", contains(1));
        Api.as(project)
                .get("/v2/queues/demo-queue/stats")
                .then()
                .body("messages.claimed", equalTo(1))
                .body("messages.oldest.href", containsString("/v2/queues/demo-queue/messages/"));
    }

    /** Numbers in a body come back equal in value: no rounding to a double, no "Infinity" (both APIs, every read). */
    @Test
    void numbersInBodiesComeBackExactly() throws Exception {
        String body =
                "{\"huge\": 1e400, \"tiny\": -2.5e-400, \"long\": 0.1000000000000000055511151231257827021181583404541015625,"
                        + " \"big\": 123456789012345678901234567890, \"plain\": 1.50}";
        post("exact", "{\"messages\": [{\"ttl\": 300, \"body\": " + body + "}]}")
                .then()
                .statusCode(201);
        Api.as(project, OTHER_CLIENT).put("/v1/queues/exact-v1").then().statusCode(201);
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("[{\"ttl\": 300, \"body\": " + body + "}]")
                .post("/v1/queues/exact-v1/messages")
                .then()
                .statusCode(201);
        ObjectMapper exact = new ObjectMapper().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);
        JsonNode sent = exact.readTree(body);
        List<String> answers = List.of(
                Api.as(project, OTHER_CLIENT).get("/v2/queues/exact/messages").asString(),
                Api.as(project, OTHER_CLIENT)
                        .get("/v1/queues/exact-v1/messages")
                        .asString(),
                Api.as(project)
                        .contentType(ContentType.JSON)
                        .body("{\"ttl\": 60, \"grace\": 60}")
                        .post("/v2/queues/exact/claims")
                        .asString());
        for (String answer : answers) {
            JsonNode got = exact.readTree(answer).get("messages").get(0).get("body");
            for (String field : List.of("huge", "tiny", "long", "big", "plain")) {
                assertEquals(
                        0,
                        sent.get(field).decimalValue().compareTo(got.get(field).decimalValue()),
                        field + ": sent " + sent.get(field) + ", got " + got.get(field) + " in " + answer);
            }
        }
    }
}
