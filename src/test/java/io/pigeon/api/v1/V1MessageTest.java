package io.pigeon.api.v1;

import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.emptyString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasKey;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.lessThanOrEqualTo;
import static org.hamcrest.Matchers.matchesPattern;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pigeon.testing.Api;
import io.pigeon.testing.Messages;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

@QuarkusTest
class V1MessageTest {

    private static final String OTHER_CLIENT = "5ee15446-0000-4000-8000-000000000002";

    private final String project = Api.newProject();
    private final String q = "demo-queue";
    private final String messages = "/v1/queues/" + q + "/messages";

    @BeforeEach
    void createQueue() {
        Api.as(project).put("/v1/queues/" + q).then().statusCode(201);
    }

    private Response post(String document) {
        return Api.as(project).contentType(ContentType.JSON).body(document).post(messages);
    }

    private void assertNothingStored() {
        Api.as(project).get("/v1/queues/" + q + "/stats").then().statusCode(200).body("messages.total", equalTo(0));
    }

    /** python-zaqarclient's queue.messages(*ids) and delete_messages(*ids) send the ids repeated. */
    @Test
    void idsAreReadInTheCommaAndTheRepeatedForm() {
        List<String> ids = Api.as(project)
                .contentType(ContentType.JSON)
                .body("[{\"ttl\": 300, \"body\": 0}, {\"ttl\": 300, \"body\": 1}, {\"ttl\": 300, \"body\": 2}]")
                .post(messages)
                .jsonPath()
                .getList("resources", String.class)
                .stream()
                .map(Messages::id)
                .toList();
        Api.as(project)
                .get(messages + "?ids=" + ids.get(0) + "&ids=" + ids.get(1) + "&ids=" + ids.get(2))
                .then()
                .statusCode(200)
                .body("body", contains(0, 1, 2));
        Api.as(project)
                .delete(messages + "?ids=" + ids.get(0) + "&ids=" + ids.get(1))
                .then()
                .statusCode(204);
        Api.as(project)
                .get(messages + "?ids=" + ids.get(0) + "," + ids.get(1) + "&ids=" + ids.get(2))
                .then()
                .statusCode(200)
                .body("body", contains(2));
    }

    @Test
    void postOneAndABatchAnswersHrefsInRequestOrder() {
        Response one = post("[{\"ttl\": 300, \"body\": {\"event\": \"one\"}}]");
        one.then()
                .statusCode(201)
                .contentType("application/json")
                .body("partial", equalTo(false))
                .body("resources", hasSize(1))
                .body("resources[0]", matchesPattern("/v1/queues/demo-queue/messages/[0-9a-f]{24}"));
        String firstId = Messages.id(one.jsonPath().getString("resources[0]"));
        assertEquals(messages + "?ids=" + firstId, one.header("Location"));

        Response batch =
                post("[{\"ttl\": 300, \"body\": {\"event\": \"two\"}}, {\"ttl\": 600, \"body\": \"a string body\"},"
                        + " {\"ttl\": 900, \"body\": [1, 2, 3]}]");
        batch.then().statusCode(201).body("resources", hasSize(3)).body("partial", equalTo(false));
        List<String> hrefs = batch.jsonPath().getList("resources", String.class);
        String ids = hrefs.stream().map(Messages::id).collect(Collectors.joining(","));
        assertEquals(messages + "?ids=" + ids, batch.header("Location"));

        Api.as(project, OTHER_CLIENT)
                .get(messages)
                .then()
                .statusCode(200)
                .header("Content-Location", messages)
                .body(
                        "messages.href",
                        contains(one.jsonPath().getString("resources[0]"), hrefs.get(0), hrefs.get(1), hrefs.get(2)))
                .body("messages.ttl", contains(300, 300, 600, 900))
                .body("messages[0].body.event", equalTo("one"))
                .body("messages[2].body", equalTo("a string body"))
                .body("messages[3].body", contains(1, 2, 3))
                .body("messages[0].age", lessThanOrEqualTo(5))
                .body("links[0].rel", equalTo("next"))
                .body("links[0].href", equalTo(messages + "?marker=" + Messages.id(hrefs.get(2))));
    }

    @Test
    void everyJsonValueIsABody() {
        List<String> bodies =
                List.of("null", "0", "-1.5", "true", "\"\"", "{}", "[]", "{\"deep\": {\"a\": [1, {\"b\": null}]}}");
        String document = bodies.stream()
                .map(b -> "{\"ttl\": 60, \"body\": " + b + "}")
                .collect(Collectors.joining(",", "[", "]"));
        post(document).then().statusCode(201);
        Api.as(project)
                .queryParam("echo", true)
                .queryParam("limit", 20)
                .get(messages)
                .then()
                .statusCode(200)
                .body("messages", hasSize(bodies.size()))
                .body("messages[0]", hasKey("body"))
                .body("messages[0].body", nullValue())
                .body("messages[1].body", equalTo(0))
                .body("messages[2].body", equalTo(-1.5f))
                .body("messages[3].body", equalTo(true))
                .body("messages[4].body", equalTo(""))
                .body("messages[5].body.isEmpty()", equalTo(true))
                .body("messages[6].body", hasSize(0))
                .body("messages[7].body.deep.a[0]", equalTo(1))
                .body("messages[7].body.deep.a[1]", hasKey("b"));
    }

    @Test
    void postToMissingQueueIsNotFoundInV1() {
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("[{\"ttl\": 60, \"body\": 1}]")
                .post("/v1/queues/auto-created-queue/messages")
                .then()
                .statusCode(404)
                .body("title", equalTo("Not found"))
                .body("description", equalTo("Queue auto-created-queue does not exist for project " + project));
        Api.as(project).get("/v1/queues/auto-created-queue").then().statusCode(404);
    }

    @Test
    void listingAnEmptyQueueIsNoContent() {
        Api.as(project)
                .get(messages)
                .then()
                .statusCode(204)
                .header("Content-Location", messages)
                .body(emptyString());
    }

    /** Zaqar 15 lists a queue that does not exist as an empty result (v1: 204); posting to it stays 404. */
    @Test
    void listingAMissingQueueIsNoContent() {
        Api.as(project)
                .get("/v1/queues/gone/messages?echo=true")
                .then()
                .statusCode(204)
                .header("Content-Location", "/v1/queues/gone/messages?echo=true")
                .body(emptyString());
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("[{\"ttl\": 60, \"body\": 1}]")
                .post("/v1/queues/gone/messages")
                .then()
                .statusCode(404)
                .body("description", equalTo("Queue gone does not exist for project " + project));
        Api.as(project).get("/v1/queues/gone").then().statusCode(404);
    }

    /**
     * Zaqar v1 requires Client-ID only to post and to list (without ids); elsewhere it is optional, but one that
     * is sent must be a UUID.
     */
    @Test
    void clientIdIsRequiredOnlyToPostAndToList() {
        List<String> hrefs = Messages.post(project, q, 3, 300);
        String id0 = Messages.id(hrefs.get(0));
        Api.withoutClientId(project).get(hrefs.get(0)).then().statusCode(200).body("body.n", equalTo(0));
        Api.withoutClientId(project).get(messages + "?ids=" + id0).then().statusCode(200);
        Api.withoutClientId(project).delete(hrefs.get(0)).then().statusCode(204);
        Api.withoutClientId(project)
                .delete(messages + "?ids=" + Messages.id(hrefs.get(1)))
                .then()
                .statusCode(204);
        Api.withoutClientId(project)
                .contentType(ContentType.JSON)
                .body("{\"ttl\": 60, \"grace\": 60}")
                .post("/v1/queues/" + q + "/claims")
                .then()
                .statusCode(201);
        Api.withoutClientId(project)
                .get(messages)
                .then()
                .statusCode(400)
                .body("title", equalTo("Missing header value"));
        Api.withoutClientId(project)
                .contentType(ContentType.JSON)
                .body("[{\"ttl\": 60, \"body\": 1}]")
                .post(messages)
                .then()
                .statusCode(400)
                .body("title", equalTo("Missing header value"));
        for (String malformed : List.of("", "not-a-uuid")) {
            Api.withoutClientId(project)
                    .header("Client-ID", malformed)
                    .get(hrefs.get(2))
                    .then()
                    .statusCode(400)
                    .body("title", equalTo("Wrong UUID value"));
            Api.withoutClientId(project)
                    .header("Client-ID", malformed)
                    .get("/v1/queues")
                    .then()
                    .statusCode(400)
                    .body("title", equalTo("Wrong UUID value"));
        }
    }

    @Test
    void aClientDoesNotSeeItsOwnMessagesUnlessEchoIsTrue() {
        List<String> hrefs = Messages.post(project, q, 4, 300);
        Api.as(project).get(messages).then().statusCode(204);
        Api.as(project, OTHER_CLIENT)
                .get(messages)
                .then()
                .statusCode(200)
                .body("messages.href", contains(hrefs.toArray()));

        Response first = Api.as(project).get(messages + "?echo=true&limit=2");
        first.then()
                .statusCode(200)
                .header("Content-Location", messages + "?echo=true&limit=2")
                .body("messages.href", contains(hrefs.get(0), hrefs.get(1)));
        String next = first.jsonPath().getString("links[0].href");
        assertEquals(messages + "?marker=" + Messages.id(hrefs.get(1)) + "&limit=2&echo=true", next);
        Api.as(project).get(next).then().statusCode(200).body("messages.href", contains(hrefs.get(2), hrefs.get(3)));
    }

    @Test
    void pagingThroughFortyFiveMessagesSeesEachOnceInOrder() {
        List<String> posted = new ArrayList<>();
        for (int batch = 0; batch < 3; batch++) {
            posted.addAll(Messages.post(project, q, 15, 300));
        }
        List<String> seen = new ArrayList<>();
        String href = messages + "?limit=10&echo=true";
        int pages = 0;
        while (true) {
            Response page = Api.as(project).get(href);
            if (page.statusCode() == 204) {
                break;
            }
            assertEquals(200, page.statusCode());
            List<String> hrefs = page.jsonPath().getList("messages.href", String.class);
            seen.addAll(hrefs);
            href = page.jsonPath().getString("links.find { it.rel == 'next' }.href");
            if (++pages > 10) {
                throw new AssertionError("paging does not end");
            }
        }
        assertEquals(posted, seen);
        assertEquals(5, pages);
    }

    @Test
    void claimedMessagesAreListedOnlyWithIncludeClaimed() {
        List<String> hrefs = Messages.post(project, q, 3, 300);
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"ttl\": 300, \"grace\": 60}")
                .post("/v1/queues/" + q + "/claims?limit=2")
                .then()
                .statusCode(201);

        Api.as(project)
                .get(messages + "?echo=true")
                .then()
                .statusCode(200)
                .body("messages.href", contains(hrefs.get(2)));
        Api.as(project)
                .get(messages + "?echo=true&include_claimed=true")
                .then()
                .statusCode(200)
                .body("messages.href", contains(hrefs.toArray()))
                .body("links[0].href", containsString("include_claimed=true"));
        Api.as(project)
                .get(messages + "?echo=true&include_claimed=false")
                .then()
                .statusCode(200)
                .body("messages.href", contains(hrefs.get(2)));
    }

    @Test
    void getOneMessage() {
        String href = Messages.post(project, q, 1, 300).get(0);
        Api.as(project)
                .get(href)
                .then()
                .statusCode(200)
                .header("Content-Location", href)
                .body("href", equalTo(href))
                .body("ttl", equalTo(300))
                .body("age", lessThanOrEqualTo(5))
                .body("body.n", equalTo(0));

        for (String unknown : List.of("5c6c9d8a1b7d4a3e2f1a0b9c", "nonexistent", "ffffffffffffffffffffffff")) {
            Api.as(project)
                    .get(messages + "/" + unknown)
                    .then()
                    .statusCode(404)
                    .body("title", equalTo("Not found"))
                    .body(
                            "description",
                            equalTo("Message " + unknown + " does not exist in queue " + q + " for project "
                                    + project));
        }
    }

    @Test
    void getMessagesByIdsIgnoresMalformedAndUnknownIds() {
        List<String> hrefs = Messages.post(project, q, 3, 300);
        String ids = Messages.id(hrefs.get(0)) + ",garbage," + Messages.id(hrefs.get(2)) + ",5c6c9d8a1b7d4a3e2f1a0b9c";
        Api.as(project)
                .urlEncodingEnabled(false)
                .get(messages + "?ids=" + ids)
                .then()
                .statusCode(200)
                .header("Content-Location", messages + "?ids=" + ids)
                .body("href", contains(hrefs.get(0), hrefs.get(2)))
                .body("[1].body.n", equalTo(2));

        Api.as(project)
                .get(messages + "?ids=5c6c9d8a1b7d4a3e2f1a0b9c")
                .then()
                .statusCode(204)
                .header("Content-Location", messages + "?ids=5c6c9d8a1b7d4a3e2f1a0b9c");

        String twentyOne =
                IntStream.range(0, 21).mapToObj(i -> String.format("%024x", i)).collect(Collectors.joining(","));
        Api.as(project)
                .get(messages + "?ids=" + twentyOne)
                .then()
                .statusCode(400)
                .body("title", equalTo("Invalid API request"))
                .body("description", equalTo("Limit must be at least 1 and may not be greater than 20."));
    }

    @Test
    void deletingAMessage() {
        List<String> hrefs = Messages.post(project, q, 2, 300);
        Api.as(project).delete(hrefs.get(0)).then().statusCode(204).body(emptyString());
        Api.as(project).get(hrefs.get(0)).then().statusCode(404);
        Api.as(project).delete(hrefs.get(0)).then().statusCode(204);
        Api.as(project).delete(messages + "/5c6c9d8a1b7d4a3e2f1a0b9c").then().statusCode(204);
        Api.as(project).delete(messages + "/not-an-id").then().statusCode(204);
        Api.as(project).get(hrefs.get(1)).then().statusCode(200);
    }

    @Test
    void bulkDeleteByIds() {
        List<String> hrefs = Messages.post(project, q, 3, 300);
        Api.as(project)
                .delete(messages + "?ids=" + Messages.id(hrefs.get(0)) + "," + Messages.id(hrefs.get(1)) + ",junk")
                .then()
                .statusCode(204);
        Api.as(project)
                .get(messages + "?echo=true")
                .then()
                .statusCode(200)
                .body("messages.href", contains(hrefs.get(2)));

        Api.as(project)
                .delete(messages)
                .then()
                .statusCode(400)
                .body("title", equalTo("Missing parameter"))
                .body("description", equalTo("The \"ids\" parameter is required."));
        String twentyOne =
                IntStream.range(0, 21).mapToObj(i -> String.format("%024x", i)).collect(Collectors.joining(","));
        Api.as(project)
                .delete(messages + "?ids=" + twentyOne)
                .then()
                .statusCode(400)
                .body("description", equalTo("Limit must be at least 1 and may not be greater than 20."));
        Api.as(project).get(hrefs.get(2)).then().statusCode(200);
    }

    @Test
    void statsCountMessagesByState() {
        Api.as(project)
                .get("/v1/queues/" + q + "/stats")
                .then()
                .statusCode(200)
                .header("Content-Location", "/v1/queues/" + q + "/stats")
                .body("messages.free", equalTo(0))
                .body("messages.claimed", equalTo(0))
                .body("messages.total", equalTo(0))
                .body("messages", not(hasKey("oldest")))
                .body("messages", not(hasKey("newest")));

        List<String> hrefs = Messages.post(project, q, 4, 300);
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"ttl\": 300, \"grace\": 60}")
                .post("/v1/queues/" + q + "/claims?limit=3")
                .then()
                .statusCode(201);

        Api.as(project)
                .get("/v1/queues/" + q + "/stats")
                .then()
                .statusCode(200)
                .body("messages.free", equalTo(1))
                .body("messages.claimed", equalTo(3))
                .body("messages.total", equalTo(4))
                .body("messages.oldest.href", equalTo(hrefs.get(0)))
                .body("messages.oldest.age", lessThanOrEqualTo(5))
                .body("messages.oldest.created", matchesPattern("\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z"))
                .body("messages.oldest.keySet()", contains("href", "age", "created"))
                .body("messages.newest.href", equalTo(hrefs.get(3)));

        Api.as(project)
                .get("/v1/queues/no-such-queue/stats")
                .then()
                .statusCode(404)
                .body("description", equalTo("Queue no-such-queue does not exist for project " + project));
    }

    @Test
    void deletingAQueueDeletesItsMessages() {
        Messages.post(project, q, 5, 300);
        Api.as(project).delete("/v1/queues/" + q).then().statusCode(204);
        Api.as(project).put("/v1/queues/" + q).then().statusCode(201);
        Api.as(project).get(messages + "?echo=true").then().statusCode(204);
        assertNothingStored();
    }

    @Test
    void messageTtlBounds() {
        post("[{\"ttl\": 60, \"body\": 1}, {\"ttl\": 1209600, \"body\": 2}]")
                .then()
                .statusCode(201);
        for (String ttl : List.of("59", "1209601", "0", "-60", "99999999999999999999")) {
            post("[{\"ttl\": " + ttl + ", \"body\": \"x\"}]")
                    .then()
                    .statusCode(400)
                    .body("title", equalTo("Invalid API request"))
                    .body(
                            "description",
                            equalTo(
                                    "The TTL for a message may not exceed 1209600 seconds, and must be at least 60 seconds long."));
        }
        for (String ttl : List.of("\"abc\"", "\"60\"", "60.5", "null", "true")) {
            post("[{\"ttl\": " + ttl + ", \"body\": \"x\"}]")
                    .then()
                    .statusCode(400)
                    .body("title", equalTo("Invalid request body"))
                    .body("description", equalTo("The value of the \"ttl\" field must be a int."));
        }
        Api.as(project).get("/v1/queues/" + q + "/stats").then().body("messages.total", equalTo(2));
    }

    @Test
    void malformedPostsAreRefusedAndStoreNothing() {
        record Case(String document, String title, String description) {}
        List<Case> cases = List.of(
                new Case("[{\"ttl\": 60}]", "Invalid request body", "Missing \"body\" field."),
                new Case("[{\"body\": \"x\"}]", "Invalid request body", "Missing \"ttl\" field."),
                new Case("[]", "Invalid API request", "No messages to enqueu."),
                new Case(
                        "{\"messages\": [ {\"ttl\": 60, \"body\": ",
                        "Invalid request body",
                        "Request body could not be parsed."),
                new Case("42", "Invalid request body", "Request body could not be parsed."),
                new Case("{\"ttl\": 60, \"body\": 1}", "Invalid request body", "Request body could not be parsed."),
                new Case(
                        "[1]",
                        "Invalid request body",
                        "Each message must be a JSON object with \"ttl\" and \"body\" fields."),
                // All or nothing: one bad message refuses the whole batch.
                new Case(
                        "[{\"ttl\": 60, \"body\": 1}, {\"ttl\": 59, \"body\": 2}]",
                        "Invalid API request",
                        "The TTL for a message may not exceed 1209600 seconds, and must be at least 60 seconds long."),
                new Case("[{\"ttl\": 60, \"body\": \"a\\u0000b\"}, {\"ttl\": 60, \"body\": 1}]", null, null));
        for (Case c : cases) {
            Response response = post(c.document());
            if (c.title() == null) {
                // A NUL is legal JSON and stored as text: accepted whole.
                response.then().statusCode(201);
                Api.as(project)
                        .delete(messages + "?ids="
                                + response.jsonPath().getList("resources", String.class).stream()
                                        .map(Messages::id)
                                        .collect(Collectors.joining(",")))
                        .then()
                        .statusCode(204);
                continue;
            }
            response.then()
                    .statusCode(400)
                    .contentType("application/json")
                    .body("title", equalTo(c.title()))
                    .body("description", equalTo(c.description()));
        }
        Api.as(project)
                .contentType(ContentType.JSON)
                .post(messages)
                .then()
                .statusCode(400)
                .body("description", equalTo("Request body can not be empty"));
        assertNothingStored();
    }

    @Test
    void postDocumentSizeLimit() {
        String prefix = "[{\"ttl\": 60, \"body\": \"";
        String suffix = "\"}]";
        String atLimit = prefix + "a".repeat(262144 - prefix.length() - suffix.length()) + suffix;
        post(atLimit).then().statusCode(201);
        String overLimit = prefix + "a".repeat(262145 - prefix.length() - suffix.length()) + suffix;
        post(overLimit)
                .then()
                .statusCode(400)
                .body("title", equalTo("Invalid API request"))
                .body("description", equalTo("Message collection size is too large. Max size 262144"));
        Api.as(project).get("/v1/queues/" + q + "/stats").then().body("messages.total", equalTo(1));
    }

    @Test
    void twentyOneMessagesInOnePostAreAccepted() {
        assertEquals(21, Messages.post(project, q, 21, 60).size());
    }

    @Test
    void formEncodedPostIsRefused() {
        Api.as(project)
                .contentType("application/x-www-form-urlencoded")
                .body("[{\"ttl\": 60, \"body\": \"x\"}]")
                .post(messages)
                .then()
                .statusCode(400)
                .body("title", equalTo("Invalid Content-Type"))
                .body("description", containsString("`application/x-www-form-urlencoded`"));
        assertNothingStored();
    }

    @Test
    void listLimitBounds() {
        for (String limit : List.of("0", "21", "-1")) {
            Api.as(project)
                    .get(messages + "?limit=" + limit)
                    .then()
                    .statusCode(400)
                    .header("Content-Location", messages + "?limit=" + limit)
                    .body("title", equalTo("Invalid API request"))
                    .body("description", equalTo("Limit must be at least 1 and may not be greater than 20."));
        }
        Api.as(project)
                .get(messages + "?limit=abc")
                .then()
                .statusCode(400)
                .body("title", equalTo("Invalid parameter"))
                .body("description", equalTo("The \"limit\" parameter is invalid. The value must be an integer."));
        // A marker that names no message is not an error in Zaqar: the listing is past the end (204 in v1).
        Api.as(project)
                .get(messages + "?marker=zzz")
                .then()
                .statusCode(204)
                .header("Content-Location", messages + "?marker=zzz");
        Api.as(project).get(messages + "?limit=20").then().statusCode(204);
    }

    @Test
    void clientIdIsRequiredToPostAndToList() {
        String href = Messages.post(project, q, 1, 300).get(0);
        List<Response> missing = List.of(
                RestAssured.given().header("X-Project-Id", project).get(messages),
                RestAssured.given()
                        .header("X-Project-Id", project)
                        .contentType(ContentType.JSON)
                        .body("[{\"ttl\": 60, \"body\": \"x\"}]")
                        .post(messages));
        for (Response response : missing) {
            response.then()
                    .statusCode(400)
                    .contentType("application/json")
                    .body("title", equalTo("Missing header value"))
                    .body("description", equalTo("The \"Client-ID\" header is required."));
        }
        for (String bad : List.of(
                "not-a-uuid",
                "3381af92-2b9e-11e3-b191-71861300734",
                "3381af922b9e11e3b19171861300734cc",
                "3381af92-2b9e-11e3-b191-71861300734g",
                "")) {
            RestAssured.given()
                    .header("X-Project-Id", project)
                    .header("Client-ID", bad)
                    .get(messages)
                    .then()
                    .statusCode(400)
                    // As in Zaqar v1, a header that is sent must be a UUID, even empty.
                    .body("title", equalTo("Wrong UUID value"));
        }
        // The forms Zaqar (Python's uuid.UUID) accepts, e.g. python-zaqarclient's 32 bare digits, name the same
        // client: its own message stays hidden without echo.
        for (String sameClient : List.of(
                "3381af922b9e11e3b19171861300734c",
                "{3381af92-2b9e-11e3-b191-71861300734c}",
                "urn:uuid:3381AF92-2B9E-11E3-B191-71861300734C")) {
            RestAssured.given()
                    .header("X-Project-Id", project)
                    .header("Client-ID", sameClient)
                    .get(messages)
                    .then()
                    .statusCode(204);
        }
        // Queue operations do not need it.
        RestAssured.given()
                .header("X-Project-Id", project)
                .put("/v1/queues/" + q)
                .then()
                .statusCode(204);
        Api.as(project).get(href).then().statusCode(200).body("body.n", equalTo(0));
    }

    @Test
    void invalidQueueNameOnMessages() {
        Api.as(project)
                .get("/v1/queues/bad$queue/messages")
                .then()
                .statusCode(400)
                .body("title", equalTo("Invalid queue identification"));
    }

    @Test
    void projectsNeverSeeEachOthersMessages() {
        String other = Api.newProject();
        Api.as(other).put("/v1/queues/" + q).then().statusCode(201);
        List<String> hrefs = Messages.post(project, q, 2, 300);

        Api.as(other, OTHER_CLIENT).get(messages).then().statusCode(204);
        Api.as(other).get(hrefs.get(0)).then().statusCode(404);
        Api.as(other).get(messages + "?ids=" + Messages.id(hrefs.get(0))).then().statusCode(204);
        Api.as(other).delete(hrefs.get(0)).then().statusCode(204);
        Api.as(other)
                .delete(messages + "?ids=" + Messages.id(hrefs.get(1)))
                .then()
                .statusCode(204);
        Api.as(other)
                .contentType(ContentType.JSON)
                .body("{\"ttl\": 60, \"grace\": 60}")
                .post("/v1/queues/" + q + "/claims")
                .then()
                .statusCode(204);
        Api.as(other).get("/v1/queues/" + q + "/stats").then().statusCode(200).body("messages.total", equalTo(0));

        Api.as(project).get(hrefs.get(0)).then().statusCode(200);
        Api.as(project).get(hrefs.get(1)).then().statusCode(200);
        Api.as(project).get("/v1/queues/" + q + "/stats").then().body("messages.free", equalTo(2));
        Api.as(project).get("/v1/queues/" + q + "/stats").then().body("messages.oldest", not(nullValue()));
    }
}
