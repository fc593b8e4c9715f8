package io.pigeon.api.v2;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.everyItem;
import static org.hamcrest.Matchers.hasItems;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.startsWith;

import io.pigeon.testing.Api;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.parsing.Parser;
import org.junit.jupiter.api.Test;

@QuarkusTest
class V2DiscoveryTest {

    private final String project = Api.newProject();

    @Test
    void versionsDocumentListsV1AndV2WithV2Current() {
        given().accept("application/json")
                .get("/")
                .then()
                .statusCode(300)
                .contentType("application/json")
                .body("versions.id", contains("1", "1.1", "2"))
                .body("versions.status", contains("DEPRECATED", "DEPRECATED", "CURRENT"))
                .body("versions[1].links[0].href", equalTo("/v1.1/"))
                .body("versions[2].links[0].href", equalTo("/v2/"))
                .body("versions[2].media-types[0].type", equalTo("application/vnd.openstack.messaging-v2+json"));
    }

    @Test
    void homeDocument() {
        Api.as(project)
                .get("/v2/")
                .then()
                .using()
                .defaultParser(Parser.JSON)
                .statusCode(200)
                .contentType(startsWith("application/json-home"))
                .body(
                        "resources.keySet()",
                        hasItems(
                                "rel/queues",
                                "rel/queue",
                                "rel/messages",
                                "rel/post_messages",
                                "rel/claim",
                                "rel/ping",
                                "rel/queue_purge",
                                "rel/queue_share"))
                .body("resources.'rel/queues'.href-template", startsWith("/v2/queues"))
                .body("resources.keySet()", hasItems("rel/topics", "rel/topic", "rel/topic_messages"))
                // The admin block (health, pools, flavors) for the operator only.
                .body("resources.keySet()", not(hasItems("rel/pools")))
                .body("resources.keySet()", not(hasItems("rel/flavors")))
                .body("resources.keySet()", not(hasItems("rel/health")))
                .header("Cache-Control", equalTo("max-age=86400"));
        Api.as(project)
                .header("X-Roles", "admin")
                .get("/v2/")
                .then()
                .using()
                .defaultParser(Parser.JSON)
                .statusCode(200)
                .body(
                        "resources.keySet()",
                        hasItems("rel/health", "rel/queues", "rel/pools", "rel/pool", "rel/flavors", "rel/flavor"))
                .header("Cache-Control", equalTo("private, max-age=86400"));
        Api.as(project).get("/v2").then().statusCode(404).body("title", equalTo("404 Not Found"));
    }

    @Test
    void ping() {
        Api.as(project).get("/v2/ping").then().statusCode(204);
        Api.as(project).head("/v2/ping").then().statusCode(204);
    }

    @Test
    void healthIsForTheOperatorOnly() {
        Api.as(project)
                .get("/v2/health")
                .then()
                .statusCode(403)
                .body("title", equalTo("Not authorized"))
                .body("description", equalTo("You are not authorized to complete this action."));
        Api.as(project)
                .header("X-Roles", "member,admin")
                .get("/v2/health")
                .then()
                .statusCode(200)
                .body("storage_reachable", equalTo(true))
                .body(
                        "operation_status.keySet()",
                        contains(
                                "create_queue",
                                "post_messages",
                                "claim_messages",
                                "list_messages",
                                "delete_messages",
                                "delete_queue"))
                .body("operation_status.values().succeeded", everyItem(equalTo(true)));
        Api.as(project)
                .header("X-Roles", "admin")
                .head("/v2/health")
                .then()
                .statusCode(405)
                .header("Allow", "GET, OPTIONS");
        // The probe left nothing behind.
        Api.as(project).get("/v2/queues").then().statusCode(200).body("queues.size()", equalTo(0));
    }

    @Test
    void everyV2CallNeedsProjectAndClientHeaders() {
        given().header("Client-ID", Api.CLIENT_ID)
                .accept("application/json")
                .get("/v2/queues")
                .then()
                .statusCode(400)
                .contentType("application/json")
                .body("title", equalTo("Project-Id Missing"))
                .body("description", equalTo("The header X-PROJECT-ID was missing"));
        given().header("X-Project-Id", project)
                .accept("application/json")
                .put("/v2/queues/errors-queue")
                .then()
                .statusCode(400)
                .body("title", equalTo("Missing header value"))
                .body("description", equalTo("The \"Client-ID\" header is required."));
        given().header("X-Project-Id", project)
                .header("Client-ID", "not-a-uuid")
                .get("/v2/queues/errors-queue/messages")
                .then()
                .statusCode(400)
                .body("title", equalTo("Wrong UUID value"));
        given().header("X-Project-Id", project).get("/v2/ping").then().statusCode(400);
        // Nothing was created by the refused PUT.
        Api.as(project).get("/v2/queues").then().statusCode(200).body("queues.size()", equalTo(0));
    }

    @Test
    void unknownUrlsAndMethodsAndMediaTypes() {
        Api.as(project).get("/v2/nothing-here").then().statusCode(404).body("title", equalTo("404 Not Found"));
        Api.as(project)
                .contentType("application/json")
                .body("{}")
                .post("/v2/queues/errors-queue")
                .then()
                .statusCode(405)
                .header("Allow", "DELETE, GET, PATCH, PUT, OPTIONS")
                .body("title", equalTo("405 Method Not Allowed"));
        Api.as(project).head("/v2/queues/errors-queue").then().statusCode(405);
        given().header("X-Project-Id", project)
                .header("Client-ID", Api.CLIENT_ID)
                .accept("text/plain")
                .get("/v2/queues")
                .then()
                .statusCode(406)
                .contentType("application/json")
                .body("title", equalTo("Not acceptable"));
    }
}
