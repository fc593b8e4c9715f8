package io.pigeon.api.v1;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsInAnyOrder;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.emptyString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.notNullValue;
import static org.hamcrest.Matchers.startsWith;

import io.pigeon.testing.Api;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.parsing.Parser;
import org.junit.jupiter.api.Test;

@QuarkusTest
class V1DiscoveryTest {

    @Test
    void homeDocumentListsEveryV1Resource() {
        Api.as(Api.newProject())
                .get("/v1/")
                .then()
                .using()
                .defaultParser(Parser.JSON)
                .statusCode(200)
                .contentType(startsWith("application/json-home"))
                .header("Cache-Control", "max-age=86400")
                .body(
                        "resources.keySet()",
                        containsInAnyOrder(
                                "rel/queues",
                                "rel/queue",
                                "rel/queue-metadata",
                                "rel/queue-stats",
                                "rel/messages",
                                "rel/post-messages",
                                "rel/claim"))
                .body("resources.'rel/queues'.href-template", equalTo("/v1/queues{?marker,limit,detailed}"))
                .body("resources.'rel/queue'.hints.allow", containsInAnyOrder("GET", "HEAD", "PUT", "DELETE"))
                .body(
                        "resources.'rel/messages'.href-template",
                        equalTo("/v1/queues/{queue_name}/messages{?marker,limit,echo,include_claimed}"))
                .body("resources.'rel/claim'.hints.accept-post", containsInAnyOrder("application/json"));
    }

    @Test
    void homeDocumentWithoutTrailingSlashIsNotFoundAsInZaqar() {
        Api.as(Api.newProject())
                .get("/v1")
                .then()
                .statusCode(404)
                .contentType("application/json")
                .body("title", equalTo("404 Not Found"))
                .body("description", notNullValue());
    }

    @Test
    void healthAnswersNoContentForGetAndHead() {
        given().get("/v1/health").then().statusCode(204).body(emptyString());
        given().head("/v1/health").then().statusCode(204);
    }

    @Test
    void unknownUrlUnderVersionIsNotFoundWithErrorDocument() {
        Api.as(Api.newProject())
                .get("/v1/nothing-here")
                .then()
                .statusCode(404)
                .contentType("application/json")
                .body("title", equalTo("404 Not Found"))
                .body("description", containsString("/v1/nothing-here"));
    }

    @Test
    void nonJsonAcceptIsNotAcceptable() {
        given().header("X-Project-Id", Api.newProject())
                .accept("text/plain")
                .get("/v1/queues")
                .then()
                .statusCode(406)
                .contentType("application/json")
                .body("title", equalTo("Not acceptable"))
                .body("description", containsString("application/json"));
    }
}
