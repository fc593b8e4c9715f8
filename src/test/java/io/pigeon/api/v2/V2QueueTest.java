package io.pigeon.api.v2;

import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasKey;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pigeon.testing.Api;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

@QuarkusTest
class V2QueueTest {

    private static final String JSON_PATCH = "application/openstack-messaging-v2.0-json-patch";

    private final String project = Api.newProject();

    private RequestSpecification patch(String document) {
        return Api.as(project).contentType(JSON_PATCH).body(document.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void createWithMetadataThenReadItWithReservedDefaults() {
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"_default_message_ttl\": 3600, \"description\": \"demo\"}")
                .put("/v2/queues/demo-queue")
                .then()
                .statusCode(201)
                .header("Location", "/v2/queues/demo-queue");
        Api.as(project).put("/v2/queues/demo-queue").then().statusCode(204).header("Location", "/v2/queues/demo-queue");

        Api.as(project)
                .get("/v2/queues/demo-queue")
                .then()
                .statusCode(200)
                .body("description", equalTo("demo"))
                .body("_default_message_ttl", equalTo(3600))
                .body("_max_messages_post_size", equalTo(262144))
                .body("_default_message_delay", equalTo(0))
                .body("$", hasKey("_dead_letter_queue"))
                .body("_dead_letter_queue", nullValue())
                .body("_dead_letter_queue_messages_ttl", nullValue())
                .body("_max_claim_count", nullValue())
                .body("_enable_encrypt_messages", equalTo(false));
    }

    @Test
    void aQueueThatDoesNotExistAnswersDefaultsAsInZaqar() {
        Api.as(project)
                .get("/v2/queues/no-such-queue")
                .then()
                .statusCode(200)
                .body("_default_message_ttl", equalTo(3600))
                .body("$", not(hasKey("description")));
        Api.as(project)
                .get("/v2/queues/no-such-queue/stats")
                .then()
                .statusCode(200)
                .body("messages.free", equalTo(0))
                .body("messages.claimed", equalTo(0))
                .body("messages.total", equalTo(0));
        Api.as(project).get("/v2/queues").then().statusCode(200).body("queues.size()", equalTo(0));
    }

    @Test
    void jsonPatchAddsReplacesAndRemoves() {
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"description\": \"demo\", \"old\": 1}")
                .put("/v2/queues/p");
        patch("[{\"op\": \"add\", \"path\": \"/metadata/color\", \"value\": \"blue\"},"
                        + " {\"op\": \"replace\", \"path\": \"/metadata/description\", \"value\": \"patched\"},"
                        + " {\"op\": \"remove\", \"path\": \"/metadata/old\"}]")
                .patch("/v2/queues/p")
                .then()
                .statusCode(200)
                .body("color", equalTo("blue"))
                .body("description", equalTo("patched"))
                .body("$", not(hasKey("old")))
                .body("_default_message_ttl", equalTo(3600));
        Api.as(project)
                .get("/v2/queues/p")
                .then()
                .body("color", equalTo("blue"))
                .body("description", equalTo("patched"));

        // Reserved attributes always have a value: replacing one that is unset sets it, removing it restores the
        // default.
        patch("[{\"op\": \"replace\", \"path\": \"/metadata/_default_message_ttl\", \"value\": 120}]")
                .patch("/v2/queues/p")
                .then()
                .statusCode(200)
                .body("_default_message_ttl", equalTo(120));
        patch("[{\"op\": \"remove\", \"path\": \"/metadata/_default_message_ttl\"},"
                        + " {\"op\": \"remove\", \"path\": \"/metadata/_max_claim_count\"}]")
                .patch("/v2/queues/p")
                .then()
                .statusCode(200)
                .body("_default_message_ttl", equalTo(3600));
    }

    /**
     * Pigeon's own attributes with a default (_claim_wait_seconds, _dedup_window_seconds) patch as Zaqar's reserved
     * ones: replaced or removed while unset (removing restores the default), a bad value is 400 naming the bound, and
     * null is unset: neither stored nor shown, by a patch or by a create.
     */
    @Test
    void pigeonsAttributesWithADefaultPatchAsReservedOnesAndNullIsUnset() {
        Api.as(project).contentType(ContentType.JSON).body("{}").put("/v2/queues/own");
        for (String name : List.of("_claim_wait_seconds", "_dedup_window_seconds")) {
            patch("[{\"op\": \"remove\", \"path\": \"/metadata/" + name + "\"}]")
                    .patch("/v2/queues/own")
                    .then()
                    .statusCode(200)
                    .body("$", not(hasKey(name)));
            patch("[{\"op\": \"replace\", \"path\": \"/metadata/" + name + "\", \"value\": 7}]")
                    .patch("/v2/queues/own")
                    .then()
                    .statusCode(200)
                    .body(name, equalTo(7));
            patch("[{\"op\": \"replace\", \"path\": \"/metadata/" + name + "\", \"value\": null}]")
                    .patch("/v2/queues/own")
                    .then()
                    .statusCode(200)
                    .body("$", not(hasKey(name)));
            Api.as(project).get("/v2/queues/own").then().statusCode(200).body("$", not(hasKey(name)));
            patch("[{\"op\": \"add\", \"path\": \"/metadata/" + name + "\", \"value\": null}]")
                    .patch("/v2/queues/own")
                    .then()
                    .statusCode(200)
                    .body("$", not(hasKey(name)));
        }
        patch("[{\"op\": \"replace\", \"path\": \"/metadata/_dedup_window_seconds\", \"value\": 0}]")
                .patch("/v2/queues/own")
                .then()
                .statusCode(400)
                .body("description", containsString("_dedup_window_seconds must be an integer from 1 to 3600"));
        patch("[{\"op\": \"replace\", \"path\": \"/metadata/_claim_wait_seconds\", \"value\": 21}]")
                .patch("/v2/queues/own")
                .then()
                .statusCode(400)
                .body("description", containsString("_claim_wait_seconds must be an integer from 0 to 20"));
        // _flavor keeps Zaqar's rule for a key that is not reserved: absent is 409.
        patch("[{\"op\": \"remove\", \"path\": \"/metadata/_flavor\"}]")
                .patch("/v2/queues/own")
                .then()
                .statusCode(409);
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"_claim_wait_seconds\": null, \"_dedup_window_seconds\": null, \"kept\": null}")
                .put("/v2/queues/nulls")
                .then()
                .statusCode(201);
        Api.as(project)
                .get("/v2/queues/nulls")
                .then()
                .statusCode(200)
                .body("$", not(hasKey("_claim_wait_seconds")))
                .body("$", not(hasKey("_dedup_window_seconds")))
                .body("$", hasKey("kept"));
    }

    @Test
    void jsonPatchErrorsChangeNothing() {
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"description\": \"demo\"}")
                .put("/v2/queues/p");
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("[{\"op\": \"add\", \"path\": \"/metadata/x\", \"value\": 1}]")
                .patch("/v2/queues/p")
                .then()
                .statusCode(415)
                .contentType("application/json")
                .body("title", equalTo("Accepted media type for PATCH: {'Accept-Patch': '" + JSON_PATCH + "'}."));
        patch("[{\"op\": \"remove\", \"path\": \"/metadata/nope\"}]")
                .patch("/v2/queues/p")
                .then()
                .statusCode(409)
                .body("title", equalTo("Resource conflict"))
                .body("description", equalTo("Can't remove non-existent object nope."));
        record Case(String document, int status, String description) {}
        for (Case c : List.of(
                new Case("[{\"op\": \"add\", \"path\": \"/color\", \"value\": 1}]", 400, "Invalid path \"/color\""),
                new Case("[{\"op\": \"add\", \"path\": \"/metadata/a/b\", \"value\": 1}]", 400, "Invalid path"),
                new Case(
                        "[{\"op\": \"move\", \"path\": \"/metadata/description\"}]", 400, "Invalid operation \"move\""),
                new Case("[{\"op\": \"add\", \"path\": \"/metadata/color\"}]", 400, "needs a \"value\""),
                new Case("{\"op\": \"add\"}", 400, "non-empty JSON array"),
                new Case("[]", 400, "non-empty JSON array"),
                new Case(
                        "[{\"op\": \"add\", \"path\": \"/metadata/_default_message_ttl\", \"value\": 59}]",
                        400,
                        "_default_message_ttl must be an integer from 60 to 1209600"),
                new Case(
                        "[{\"op\": \"add\", \"path\": \"/metadata/_enable_encrypt_messages\", \"value\": \"yes\"}]",
                        400,
                        "_enable_encrypt_messages must be a boolean"),
                // All or nothing: the valid first operation is not applied either.
                new Case(
                        "[{\"op\": \"add\", \"path\": \"/metadata/color\", \"value\": \"red\"},"
                                + " {\"op\": \"remove\", \"path\": \"/metadata/nope\"}]",
                        409,
                        "nope"),
                new Case("[{\"op\": \"add\",", 400, "Request body could not be parsed."))) {
            patch(c.document())
                    .patch("/v2/queues/p")
                    .then()
                    .statusCode(c.status())
                    .body("description", containsString(c.description()));
        }
        Api.as(project)
                .get("/v2/queues/p")
                .then()
                .body("description", equalTo("demo"))
                .body("$", not(hasKey("color")));
        patch("[{\"op\": \"add\", \"path\": \"/metadata/x\", \"value\": 1}]")
                .patch("/v2/queues/missing")
                .then()
                .statusCode(404)
                .body("title", equalTo("Not found"));
    }

    @Test
    void reservedAttributesAreValidatedOnCreate() {
        for (String metadata : List.of(
                "{\"_max_messages_post_size\": 262145}",
                "{\"_max_messages_post_size\": 0}",
                "{\"_default_message_delay\": 901}",
                "{\"_default_message_ttl\": \"long\"}",
                "{\"_max_claim_count\": 0}",
                "{\"_dead_letter_queue\": \"bad$name\"}",
                "{\"_dead_letter_queue_messages_ttl\": 59}")) {
            Api.as(project)
                    .contentType(ContentType.JSON)
                    .body(metadata)
                    .put("/v2/queues/strict")
                    .then()
                    .statusCode(400)
                    .contentType("application/json");
        }
        Api.as(project).get("/v2/queues").then().body("queues.size()", equalTo(0));
        Api.as(project)
                .contentType(ContentType.JSON)
                .body(
                        "{\"_max_claim_count\": 3, \"_dead_letter_queue\": \"dlq\", \"_dead_letter_queue_messages_ttl\": 600}")
                .put("/v2/queues/strict")
                .then()
                .statusCode(201);
    }

    @Test
    void metadataDocumentErrors() {
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{bad json")
                .put("/v2/queues/errors-queue")
                .then()
                .statusCode(400)
                .body("title", equalTo("Invalid request body"))
                .body("description", equalTo("Request body could not be parsed."));
        String prefix = "{\"k\": \"";
        Api.as(project)
                .contentType(ContentType.JSON)
                .body(prefix + "a".repeat(65537 - prefix.length() - 2) + "\"}")
                .put("/v2/queues/errors-queue")
                .then()
                .statusCode(400)
                .body("description", equalTo("Queue metadata is too large. Max size: 65536"));
        Api.as(project).get("/v2/queues").then().body("queues.size()", equalTo(0));
    }

    @Test
    void listingWithPagingDetailCountAndNameFilter() {
        Api.as(project)
                .get("/v2/queues")
                .then()
                .statusCode(200)
                .body("queues", equalTo(List.of()))
                .body("links", equalTo(List.of()));
        for (String name : List.of("demo-queue", "demo-queue-2", "other")) {
            Api.as(project).put("/v2/queues/" + name).then().statusCode(201);
        }
        Api.as(project)
                .get("/v2/queues")
                .then()
                .statusCode(200)
                .body("queues.name", contains("demo-queue", "demo-queue-2", "other"))
                .body("queues.href", contains("/v2/queues/demo-queue", "/v2/queues/demo-queue-2", "/v2/queues/other"))
                .body("queues[0]", not(hasKey("metadata")))
                .body("$", not(hasKey("count")))
                .body("links[0].href", equalTo("/v2/queues?marker=other"));
        Api.as(project)
                .get("/v2/queues?detailed=true")
                .then()
                .body("queues[0].metadata._default_message_ttl", equalTo(3600));
        Api.as(project)
                .get("/v2/queues?with_count=true&limit=1")
                .then()
                .statusCode(200)
                .body("count", equalTo(3))
                .body("queues.name", contains("demo-queue"));
        Api.as(project).get("/v2/queues?name=demo-queue-2").then().body("queues.name", contains("demo-queue-2"));
        Api.as(project)
                .get("/v2/queues?name=demo&with_count=true")
                .then()
                .body("queues.name", contains("demo-queue", "demo-queue-2"))
                .body("count", equalTo(2));

        List<String> seen = new ArrayList<>();
        String href = "/v2/queues?limit=1";
        for (int page = 0; page < 10; page++) {
            Response response = Api.as(project).get(href);
            List<String> names = response.jsonPath().getList("queues.name", String.class);
            if (names.isEmpty()) {
                assertEquals(List.of(), response.jsonPath().getList("links"));
                break;
            }
            seen.addAll(names);
            href = response.jsonPath().getString("links[0].href");
        }
        assertEquals(List.of("demo-queue", "demo-queue-2", "other"), seen);

        for (String limit : List.of("0", "1001")) {
            Api.as(project)
                    .get("/v2/queues?limit=" + limit)
                    .then()
                    .statusCode(400)
                    .body("description", equalTo("Limit must be at least 1 and no greater than 20."));
        }
    }

    @Test
    void invalidNames() {
        Api.as(project)
                .put("/v2/queues/bad$queue")
                .then()
                .statusCode(400)
                .body("title", equalTo("Invalid queue identification"));
        Api.as(project).put("/v2/queues/" + "q".repeat(65)).then().statusCode(400);
        Api.as(project).get("/v2/queues/bad$queue/messages").then().statusCode(400);
    }

    @Test
    void purgeDeletesMessagesButKeepsTheQueue() {
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"description\": \"kept\"}")
                .put("/v2/queues/purged");
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"messages\": [{\"ttl\": 300, \"body\": 0}, {\"ttl\": 300, \"body\": 1}]}")
                .post("/v2/queues/purged/messages")
                .then()
                .statusCode(201);
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"resource_types\": [\"bogus\"]}")
                .post("/v2/queues/purged/purge")
                .then()
                .statusCode(400)
                .body("description", equalTo("Resource types must be a sub set of {'messages', 'subscriptions'}."));
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"resource_types\": [\"subscriptions\"]}")
                .post("/v2/queues/purged/purge")
                .then()
                .statusCode(204);
        Api.as(project).get("/v2/queues/purged/stats").then().body("messages.total", equalTo(2));
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"resource_types\": [\"messages\"]}")
                .post("/v2/queues/purged/purge")
                .then()
                .statusCode(204);
        Api.as(project).get("/v2/queues/purged/stats").then().body("messages.total", equalTo(0));
        Api.as(project).get("/v2/queues/purged").then().body("description", equalTo("kept"));
        Api.as(project).post("/v2/queues/purged/purge").then().statusCode(204);
    }

    @Test
    void deleteIsIdempotent() {
        Api.as(project).put("/v2/queues/gone").then().statusCode(201);
        Api.as(project).delete("/v2/queues/gone").then().statusCode(204);
        Api.as(project).delete("/v2/queues/gone").then().statusCode(204);
        Api.as(project).get("/v2/queues").then().body("queues.size()", equalTo(0));
    }

    @Test
    void projectsAreIsolated() {
        String other = Api.newProject();
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"owner\": \"first\"}")
                .put("/v2/queues/shared");
        Api.as(other).get("/v2/queues").then().body("queues.size()", equalTo(0));
        Api.as(other).get("/v2/queues/shared").then().statusCode(200).body("$", not(hasKey("owner")));
        Api.as(other)
                .contentType(JSON_PATCH)
                .body("[{\"op\": \"add\", \"path\": \"/metadata/owner\", \"value\": \"x\"}]"
                        .getBytes(StandardCharsets.UTF_8))
                .patch("/v2/queues/shared")
                .then()
                .statusCode(404);
        Api.as(other).delete("/v2/queues/shared").then().statusCode(204);
        Api.as(project).get("/v2/queues/shared").then().body("owner", equalTo("first"));
    }
}
