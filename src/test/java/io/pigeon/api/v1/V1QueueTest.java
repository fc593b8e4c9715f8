package io.pigeon.api.v1;

import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.emptyString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasKey;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pigeon.testing.Api;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import io.restassured.response.Response;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

@QuarkusTest
class V1QueueTest {

    private static final String INVALID_NAME = "The format of the submitted queue name or project id is not valid.";

    private final String project = Api.newProject();

    @Test
    void createAnswersCreatedThenNoContentWithLocation() {
        Api.as(project).put("/v1/queues/demo-queue").then().statusCode(201).header("Location", "/v1/queues/demo-queue");
        Api.as(project).put("/v1/queues/demo-queue").then().statusCode(204).header("Location", "/v1/queues/demo-queue");
    }

    @Test
    void existenceCheckWithGetAndHead() {
        Api.as(project).put("/v1/queues/present").then().statusCode(201);

        Api.as(project)
                .get("/v1/queues/present")
                .then()
                .statusCode(204)
                .header("Content-Location", "/v1/queues/present")
                .body(emptyString());
        Api.as(project).head("/v1/queues/present").then().statusCode(204);

        Api.as(project)
                .get("/v1/queues/absent")
                .then()
                .statusCode(404)
                .header("Content-Location", "/v1/queues/absent")
                .contentType("application/json")
                .body("title", equalTo("Not found"))
                .body("description", equalTo("Queue absent does not exist for project " + project));
        Api.as(project).head("/v1/queues/absent").then().statusCode(404);
    }

    @Test
    void deleteIsIdempotent() {
        Api.as(project).put("/v1/queues/doomed").then().statusCode(201);
        Api.as(project).delete("/v1/queues/doomed").then().statusCode(204).body(emptyString());
        Api.as(project).get("/v1/queues/doomed").then().statusCode(404);
        Api.as(project).delete("/v1/queues/doomed").then().statusCode(204);
        Api.as(project).delete("/v1/queues/never-existed").then().statusCode(204);
    }

    @Test
    void metadataIsReplacedWholeAndReadBack() {
        Api.as(project).put("/v1/queues/meta").then().statusCode(201);

        Api.as(project)
                .get("/v1/queues/meta/metadata")
                .then()
                .statusCode(200)
                .contentType("application/json")
                .body("isEmpty()", equalTo(true));

        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"description\": \"demo\", \"n\": 1, \"nested\": {\"key3\": [1, 2, 3]}}")
                .put("/v1/queues/meta/metadata")
                .then()
                .statusCode(204)
                .header("Location", "/v1/queues/meta/metadata");

        Api.as(project)
                .get("/v1/queues/meta/metadata")
                .then()
                .statusCode(200)
                .header("Content-Location", "/v1/queues/meta/metadata")
                .body("description", equalTo("demo"))
                .body("n", equalTo(1))
                .body("nested.key3", contains(1, 2, 3));

        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"other\": true}")
                .put("/v1/queues/meta/metadata")
                .then()
                .statusCode(204);
        Api.as(project)
                .get("/v1/queues/meta/metadata")
                .then()
                .statusCode(200)
                .body("other", equalTo(true))
                .body("$", not(hasKey("description")));
    }

    @Test
    void metadataOfMissingQueueIsNotFound() {
        Api.as(project)
                .get("/v1/queues/no-such-queue/metadata")
                .then()
                .statusCode(404)
                .body("title", equalTo("Not found"))
                .body("description", equalTo("Queue no-such-queue does not exist for project " + project));
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{}")
                .put("/v1/queues/no-such-queue/metadata")
                .then()
                .statusCode(404)
                .body("title", equalTo("Not found"));
        Api.as(project).get("/v1/queues/no-such-queue").then().statusCode(404);
    }

    @Test
    void metadataMustBeAnObject() {
        Api.as(project).put("/v1/queues/meta").then().statusCode(201);
        for (String document : List.of("[\"x\"]", "42", "\"text\"", "null")) {
            Api.as(project)
                    .contentType(ContentType.JSON)
                    .body(document)
                    .put("/v1/queues/meta/metadata")
                    .then()
                    .statusCode(400)
                    .contentType("application/json")
                    .body("title", equalTo("Invalid request body"))
                    .body("description", containsString("Document type not supported."));
        }
        assertMetadataIsEmpty("meta");
    }

    @Test
    void malformedMetadataIsRefused() {
        Api.as(project).put("/v1/queues/meta").then().statusCode(201);
        for (String document : List.of("{bad json", "{\"a\": 1} trailing", "{\"a\": 1, \"a\": 2}")) {
            Api.as(project)
                    .contentType(ContentType.JSON)
                    .body(document)
                    .put("/v1/queues/meta/metadata")
                    .then()
                    .statusCode(400)
                    .body("title", equalTo("Invalid request body"))
                    .body("description", equalTo("Request body could not be parsed."));
        }
        Api.as(project)
                .contentType(ContentType.JSON)
                .put("/v1/queues/meta/metadata")
                .then()
                .statusCode(400)
                .body("title", equalTo("Invalid request body"))
                .body("description", equalTo("Request body can not be empty"));
        assertMetadataIsEmpty("meta");
    }

    @Test
    void metadataTheDatabaseCannotHoldIsABadRequest() {
        Api.as(project).put("/v1/queues/meta").then().statusCode(201);
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"nul\": \"a\\u0000b\"}")
                .put("/v1/queues/meta/metadata")
                .then()
                .statusCode(400)
                .body("title", equalTo("Invalid request body"))
                .body("description", containsString("u0000"));
        assertMetadataIsEmpty("meta");
    }

    @Test
    void metadataAtTheLimitIsStoredAndOneByteMoreIsRefused() {
        Api.as(project).put("/v1/queues/meta").then().statusCode(201);
        String atLimit = objectOfSize(65536);
        Api.as(project)
                .contentType(ContentType.JSON)
                .body(atLimit)
                .put("/v1/queues/meta/metadata")
                .then()
                .statusCode(204);

        Api.as(project)
                .contentType(ContentType.JSON)
                .body(objectOfSize(65537))
                .put("/v1/queues/meta/metadata")
                .then()
                .statusCode(400)
                .body("title", equalTo("Invalid API request"))
                .body("description", equalTo("Queue metadata is too large. Max size: 65536"));

        Map<String, Object> stored = Api.as(project)
                .get("/v1/queues/meta/metadata")
                .then()
                .statusCode(200)
                .extract()
                .jsonPath()
                .getMap("$");
        assertEquals(JsonPath.from(atLimit).getMap("$"), stored);
    }

    @Test
    void metadataWithNonJsonContentTypeIsRefused() {
        Api.as(project).put("/v1/queues/meta").then().statusCode(201);
        Api.as(project)
                .contentType("application/x-www-form-urlencoded")
                .body("{\"a\": 1}")
                .put("/v1/queues/meta/metadata")
                .then()
                .statusCode(400)
                .body("title", equalTo("Invalid Content-Type"))
                .body("description", containsString("application/x-www-form-urlencoded"));
        assertMetadataIsEmpty("meta");
    }

    @Test
    void listingAnEmptyProjectIsNoContent() {
        Api.as(project).get("/v1/queues").then().statusCode(204).body(emptyString());
    }

    @Test
    void listingShowsNamesInOrderAndMetadataOnlyWhenDetailed() {
        Api.as(project).put("/v1/queues/demo-queue-2").then().statusCode(201);
        Api.as(project).put("/v1/queues/demo-queue").then().statusCode(201);
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"description\": \"demo\"}")
                .put("/v1/queues/demo-queue/metadata")
                .then()
                .statusCode(204);

        Api.as(project)
                .get("/v1/queues")
                .then()
                .statusCode(200)
                .header("Content-Location", "/v1/queues")
                .body("queues.name", contains("demo-queue", "demo-queue-2"))
                .body("queues.href", contains("/v1/queues/demo-queue", "/v1/queues/demo-queue-2"))
                .body("queues[0]", not(hasKey("metadata")))
                .body("links.rel", contains("next"))
                .body("links[0].href", equalTo("/v1/queues?marker=demo-queue-2"));

        Api.as(project)
                .get("/v1/queues?detailed=true")
                .then()
                .statusCode(200)
                .header("Content-Location", "/v1/queues?detailed=true")
                .body("queues[0].metadata.description", equalTo("demo"))
                .body("queues[1].metadata.isEmpty()", equalTo(true))
                .body("links[0].href", equalTo("/v1/queues?marker=demo-queue-2&detailed=true"));
    }

    @Test
    void followingNextLinksVisitsEveryQueueOnceInOrder() {
        List<String> created = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            String name = "q-" + i;
            created.add(name);
            Api.as(project).put("/v1/queues/" + name).then().statusCode(201);
        }
        List<String> seen = new ArrayList<>();
        String href = "/v1/queues?limit=3";
        int pages = 0;
        while (true) {
            Response response = Api.as(project).get(href);
            if (response.statusCode() == 204) {
                break;
            }
            assertEquals(200, response.statusCode());
            seen.addAll(response.jsonPath().getList("queues.name", String.class));
            href = response.jsonPath().getString("links.find { it.rel == 'next' }.href");
            pages++;
            if (pages > 10) {
                throw new AssertionError("paging does not end: " + seen);
            }
        }
        assertEquals(created, seen);
        assertEquals(3, pages);
    }

    @Test
    void listLimitBounds() {
        Api.as(project).put("/v1/queues/one").then().statusCode(201);
        Api.as(project)
                .get("/v1/queues?limit=1")
                .then()
                .statusCode(200)
                .body("links[0].href", equalTo("/v1/queues?marker=one&limit=1"));
        Api.as(project).get("/v1/queues?limit=20").then().statusCode(200);
        for (String limit : List.of("0", "21", "1001", "-1")) {
            Api.as(project)
                    .get("/v1/queues?limit=" + limit)
                    .then()
                    .statusCode(400)
                    .contentType("application/json")
                    .body("title", equalTo("Invalid API request"))
                    .body("description", equalTo("Limit must be at least 1 and no greater than 20."));
        }
        Api.as(project)
                .get("/v1/queues?limit=abc")
                .then()
                .statusCode(400)
                .body("title", equalTo("Invalid parameter"))
                .body("description", equalTo("The \"limit\" parameter is invalid. The value must be an integer."));
        Api.as(project)
                .get("/v1/queues?detailed=maybe")
                .then()
                .statusCode(400)
                .body("title", equalTo("Invalid parameter"))
                .body("description", containsString("\"detailed\""));
    }

    @Test
    void queueNamesAreValidated() {
        String longest = "q".repeat(64);
        Api.as(project).put("/v1/queues/" + longest).then().statusCode(201);
        Api.as(project).put("/v1/queues/Az_09-").then().statusCode(201);

        for (String bad : List.of("bad$queue", "q".repeat(65), "caf%C3%A9", "dot.name", "sp%20ace", "semi;colon")) {
            Api.as(project)
                    .urlEncodingEnabled(false)
                    .put("/v1/queues/" + bad)
                    .then()
                    .statusCode(400)
                    .contentType("application/json")
                    .body("title", equalTo("Invalid queue identification"))
                    .body("description", containsString(INVALID_NAME))
                    .body("description", containsString("1 to 64 bytes"));
        }
        Api.as(project)
                .get("/v1/queues/bad$queue/metadata")
                .then()
                .statusCode(400)
                .body("title", equalTo("Invalid queue identification"));
        Api.as(project).get("/v1/queues/bad$queue").then().statusCode(400);
        Api.as(project).delete("/v1/queues/bad$queue").then().statusCode(400);

        Api.as(project)
                .get("/v1/queues?limit=20")
                .then()
                .statusCode(200)
                .body("queues.name", contains("Az_09-", longest));
    }

    @Test
    void unsupportedMethodIsMethodNotAllowedWithAllowHeader() {
        Api.as(project).put("/v1/queues/errors-queue").then().statusCode(201);
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{}")
                .post("/v1/queues/errors-queue")
                .then()
                .statusCode(405)
                .contentType("application/json")
                .header("Allow", containsString("PUT"))
                .header("Allow", containsString("DELETE"))
                .body("title", equalTo("405 Method Not Allowed"))
                .body("description", containsString("POST"));
    }

    @Test
    void projectsNeverSeeEachOthersQueues() {
        String other = Api.newProject();
        Api.as(project).put("/v1/queues/shared-name").then().statusCode(201);
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"owner\": \"first\"}")
                .put("/v1/queues/shared-name/metadata")
                .then()
                .statusCode(204);

        Api.as(other).get("/v1/queues").then().statusCode(204);
        Api.as(other).get("/v1/queues/shared-name").then().statusCode(404);
        Api.as(other).get("/v1/queues/shared-name/metadata").then().statusCode(404);
        Api.as(other)
                .contentType(ContentType.JSON)
                .body("{\"owner\": \"second\"}")
                .put("/v1/queues/shared-name/metadata")
                .then()
                .statusCode(404);
        Api.as(other).delete("/v1/queues/shared-name").then().statusCode(204);

        // The same name in another project is another queue.
        Api.as(other).put("/v1/queues/shared-name").then().statusCode(201);
        Api.as(other)
                .get("/v1/queues/shared-name/metadata")
                .then()
                .statusCode(200)
                .body("isEmpty()", equalTo(true));

        Api.as(project)
                .get("/v1/queues/shared-name/metadata")
                .then()
                .statusCode(200)
                .body("owner", equalTo("first"));
        Api.as(project).get("/v1/queues").then().statusCode(200).body("queues.name", contains("shared-name"));
    }

    @Test
    void missingProjectHeaderUsesTheDefaultProject() {
        String name = "default-" + Math.abs(project.hashCode());
        RestAssured.given()
                .accept(ContentType.JSON)
                .put("/v1/queues/" + name)
                .then()
                .statusCode(201);
        RestAssured.given()
                .accept(ContentType.JSON)
                .get("/v1/queues/" + name)
                .then()
                .statusCode(204);
        Api.as(project).get("/v1/queues/" + name).then().statusCode(404);
        RestAssured.given()
                .accept(ContentType.JSON)
                .delete("/v1/queues/" + name)
                .then()
                .statusCode(204);
    }

    @Test
    void overlongProjectIdIsRefused() {
        Api.as("p".repeat(257))
                .put("/v1/queues/x")
                .then()
                .statusCode(400)
                .body("title", equalTo("Invalid queue identification"))
                .body("description", containsString("256"));
        // A project of its own (256 characters exactly), so that a run against a kept database makes it anew.
        String longest = Api.newProject();
        Api.as(longest + "p".repeat(256 - longest.length()))
                .put("/v1/queues/x")
                .then()
                .statusCode(201);
    }

    private void assertMetadataIsEmpty(String queue) {
        Api.as(project)
                .get("/v1/queues/" + queue + "/metadata")
                .then()
                .statusCode(200)
                .body("isEmpty()", equalTo(true))
                .body("description", nullValue());
    }

    /** A JSON object of exactly {@code size} bytes: {"k": "aaa..."}. */
    private static String objectOfSize(int size) {
        String prefix = "{\"k\": \"";
        String suffix = "\"}";
        return prefix + "a".repeat(size - prefix.length() - suffix.length()) + suffix;
    }
}
