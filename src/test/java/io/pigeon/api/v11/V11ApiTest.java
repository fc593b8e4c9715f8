package io.pigeon.api.v11;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.everyItem;
import static org.hamcrest.Matchers.hasItems;
import static org.hamcrest.Matchers.hasKey;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.matchesPattern;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.startsWith;

import io.pigeon.testing.Api;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.parsing.Parser;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * API v1.1, exchange by exchange as Zaqar 15 answers it (zaqar-15-transcript-v1.1.txt in the shared reference):
 * v2 without its later features, served by the same resources.
 */
@QuarkusTest
class V11ApiTest {

    private final String project = Api.newProject();
    private final String queue = "/v1.1/queues/demo-queue";
    private final String messages = queue + "/messages";

    @Test
    void discovery() {
        given().get("/").then().statusCode(300).body("versions.id", contains("1", "1.1", "2"));
        Api.as(project).get("/v1.1").then().statusCode(404);
        Api.as(project)
                .get("/v1.1/")
                .then()
                .using()
                .defaultParser(Parser.JSON)
                .statusCode(200)
                .contentType(startsWith("application/json-home"))
                .header("Cache-Control", equalTo("max-age=86400"))
                .body(
                        "resources.keySet()",
                        hasItems(
                                "rel/queues",
                                "rel/queue",
                                "rel/queue_stats",
                                "rel/messages",
                                "rel/post_messages",
                                "rel/messages_delete",
                                "rel/message_delete",
                                "rel/claim",
                                "rel/post_claim",
                                "rel/patch_claim",
                                "rel/delete_claim",
                                "rel/ping"))
                .body("resources.keySet()", not(hasItems("rel/queue_purge")))
                .body("resources.keySet()", not(hasItems("rel/subscriptions_get")))
                .body("resources.keySet()", not(hasItems("rel/queue_share")))
                .body("resources.'rel/queue'.hints.allow", contains("GET", "PUT", "DELETE"))
                .body("resources.'rel/queues'.href-template", startsWith("/v1.1/queues"));
        Api.as(project).get("/v1.1/ping").then().statusCode(204);
        Api.as(project).head("/v1.1/ping").then().statusCode(204);
        Api.as(project).get("/v1.1/health").then().statusCode(403);
        Api.as(project)
                .header("X-Roles", "admin")
                .get("/v1.1/health")
                .then()
                .statusCode(200)
                .body("storage_reachable", equalTo(true));
    }

    @Test
    void queues() {
        Api.as(project)
                .get("/v1.1/queues")
                .then()
                .statusCode(200)
                .body("queues", hasSize(0))
                .body("links", hasSize(0));
        Api.as(project).put(queue).then().statusCode(201).header("Location", equalTo(queue));
        Api.as(project).put(queue).then().statusCode(204);
        // v1.1 answers the metadata as stored: no reserved defaults; a missing queue reads as empty.
        Api.as(project).get(queue).then().statusCode(200).body(equalTo("{}"));
        Api.as(project).get("/v1.1/queues/no-such-queue").then().statusCode(200).body(equalTo("{}"));
        Api.as(project).head(queue).then().statusCode(405);
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("[]")
                .patch(queue)
                .then()
                .statusCode(405)
                .header("Allow", equalTo("DELETE, GET, PUT, OPTIONS"));
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{}")
                .post(queue)
                .then()
                .statusCode(405);
        Api.as(project).put("/v1.1/queues/demo-queue-2").then().statusCode(201);
        Api.as(project)
                .get("/v1.1/queues?detailed=true&with_count=true&name=2")
                .then()
                .statusCode(200)
                .body("queues.name", contains("demo-queue", "demo-queue-2"))
                .body("queues[0].metadata", equalTo(Map.of()))
                .body("queues[0].href", equalTo(queue))
                .body("$", not(hasKey("count")))
                .body("links[0].href", equalTo("/v1.1/queues?marker=demo-queue-2&detailed=true"));
        Api.as(project)
                .get("/v1.1/queues?limit=1")
                .then()
                .body("links[0].href", equalTo("/v1.1/queues?marker=demo-queue&limit=1"));
        Api.as(project).get(queue + "/stats").then().statusCode(200).body("messages.total", equalTo(0));
        Api.as(project)
                .get("/v1.1/queues/no-such-queue/stats")
                .then()
                .statusCode(200)
                .body("messages.total", equalTo(0));
        // v2-only resources do not exist under v1.1.
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{}")
                .post(queue + "/purge")
                .then()
                .statusCode(404);
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{}")
                .post(queue + "/share")
                .then()
                .statusCode(404);
        Api.as(project).get(queue + "/subscriptions").then().statusCode(404);
        Api.as(project).delete(queue).then().statusCode(204);
        Api.as(project).delete(queue).then().statusCode(204);
    }

    @Test
    void messagesAndClaims() {
        // Posting creates the queue; a message without ttl takes the global default; a delay is not part of v1.1.
        Api.as(project).put("/v1.1/queues/with-defaults").then().statusCode(201);
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"messages\": [{\"body\": \"x\", \"delay\": 60}]}")
                .post("/v1.1/queues/with-defaults/messages")
                .then()
                .statusCode(201)
                .header("Location", matchesPattern("/v1.1/queues/with-defaults/messages\\?ids=[0-9a-f]{24}"))
                .body("resources[0]", matchesPattern("/v1.1/queues/with-defaults/messages/[0-9a-f]{24}"));
        Api.as(project)
                .get("/v1.1/queues/with-defaults/messages?echo=true")
                .then()
                .statusCode(200)
                .body("messages.ttl", contains(3600))
                .body("messages[0].href", startsWith("/v1.1/queues/with-defaults/messages/"));

        List<String> hrefs = Api.as(project)
                .contentType(ContentType.JSON)
                .body(
                        "{\"messages\": [{\"ttl\": 300, \"body\": 1}, {\"ttl\": 300, \"body\": 2}, {\"ttl\": 300, \"body\": 3}]}")
                .post(messages)
                .then()
                .statusCode(201)
                .extract()
                .jsonPath()
                .getList("resources", String.class);
        Api.as(project)
                .get(messages)
                .then()
                .statusCode(200)
                .body("messages", hasSize(0))
                .body("links", hasSize(0));
        Api.as(project)
                .get(messages + "?echo=true&limit=2&include_delayed=true")
                .then()
                .statusCode(200)
                .body("messages.body", contains(1, 2))
                .body("links[0].href", startsWith(messages + "?marker="))
                .body("links[0].href", not(containsString("include_delayed")));
        Api.as(project)
                .get(hrefs.get(0))
                .then()
                .statusCode(200)
                .body("href", equalTo(hrefs.get(0)))
                .body("body", equalTo(1));
        Api.as(project).get(messages + "?ids=5c6c9d8a1b7d4a3e2f1a0b9c").then().statusCode(404);

        String claim = Api.as(project)
                .contentType(ContentType.JSON)
                .body("{}")
                .post(queue + "/claims?limit=2")
                .then()
                .statusCode(201)
                .header("Location", matchesPattern(queue + "/claims/[0-9a-f-]{36}"))
                .body("messages.href", everyItem(matchesPattern(messages + "/[0-9a-f]{24}\\?claim_id=[0-9a-f-]{36}")))
                .extract()
                .header("Location");
        Api.as(project)
                .get(claim)
                .then()
                .statusCode(200)
                .body("ttl", equalTo(300))
                .body("href", equalTo(claim));
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{}")
                .patch(claim)
                .then()
                .statusCode(204);
        Api.as(project).delete(claim).then().statusCode(204);
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{}")
                .post("/v1.1/queues/absent/claims")
                .then()
                .statusCode(204);

        Api.as(project).delete(messages + "?pop=2").then().statusCode(200).body("messages.body", contains(1, 2));
        Api.as(project)
                .delete(messages + "?pop=1&ids=5c6c9d8a1b7d4a3e2f1a0b9c")
                .then()
                .statusCode(400);
        Api.as(project).delete(messages).then().statusCode(400);
        Api.as(project).get("/v1.1/queues/demo-queue/stats").then().body("messages.total", equalTo(1));
    }

    @Test
    void everyCallNamesItsProjectAndClient() {
        given().header("Client-ID", Api.CLIENT_ID)
                .get("/v1.1/queues")
                .then()
                .statusCode(400)
                .body("description", containsString("X-PROJECT-ID"));
        given().header("X-Project-Id", project)
                .put("/v1.1/queues/errors-queue")
                .then()
                .statusCode(400)
                .body("title", equalTo("Missing header value"));
        Api.as(project).put("/v1.1/queues/bad$queue").then().statusCode(400);
        Api.as(project).get("/v1.1/nothing-here").then().statusCode(404);
    }
}
