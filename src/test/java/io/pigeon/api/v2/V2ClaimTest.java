package io.pigeon.api.v2;

import static org.hamcrest.Matchers.allOf;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.emptyString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.everyItem;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.lessThanOrEqualTo;
import static org.hamcrest.Matchers.matchesPattern;

import io.pigeon.testing.Api;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

@QuarkusTest
class V2ClaimTest {

    private final String project = Api.newProject();
    private final String claims = "/v2/queues/demo-queue/claims";

    @BeforeEach
    void postMessages() {
        Api.as(project)
                .contentType(ContentType.JSON)
                .body(
                        "{\"messages\": [{\"ttl\": 300, \"body\": 0}, {\"ttl\": 300, \"body\": 1}, {\"ttl\": 300, \"body\": 2}]}")
                .post("/v2/queues/demo-queue/messages")
                .then()
                .statusCode(201);
    }

    @Test
    void claimWithDefaultsQueryRenewRelease() {
        Response claimed =
                Api.as(project).contentType(ContentType.JSON).body("{}").post(claims + "?limit=2");
        claimed.then()
                .statusCode(201)
                .header("Location", matchesPattern(claims + "/[0-9a-f-]{36}"))
                .body("messages", hasSize(2))
                .body("messages.body", contains(0, 1))
                .body(
                        "messages[0].href",
                        matchesPattern("/v2/queues/demo-queue/messages/[0-9a-f]{24}\\?claim_id=[0-9a-f-]{36}"))
                // ttl 300 + grace 60 from now.
                .body("messages.ttl", everyItem(allOf(greaterThanOrEqualTo(360), lessThanOrEqualTo(365))));
        String location = claimed.header("Location");

        Api.as(project)
                .get(location)
                .then()
                .statusCode(200)
                .body("ttl", equalTo(300))
                .body("age", lessThanOrEqualTo(5))
                .body("href", equalTo(location))
                .body("messages.body", contains(0, 1));
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"ttl\": 600, \"grace\": 30}")
                .patch(location)
                .then()
                .statusCode(204)
                .body(emptyString());
        Api.as(project).get(location).then().body("ttl", equalTo(600));

        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"ttl\": 60, \"grace\": 60}")
                .post(claims + "?limit=10")
                .then()
                .statusCode(201)
                .body("messages.body", contains(2));
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"ttl\": 60, \"grace\": 60}")
                .post(claims)
                .then()
                .statusCode(204);

        Api.as(project).delete(location).then().statusCode(204);
        Api.as(project).get(location).then().statusCode(404).body("title", equalTo("Not found"));
        Api.as(project).delete(location).then().statusCode(204);
        Api.as(project).get("/v2/queues/demo-queue/stats").then().body("messages.free", equalTo(2));
    }

    @Test
    void aRenewalThatNamesNoTermsTakesTheDefaults() {
        String location = Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"ttl\": 600, \"grace\": 60}")
                .post(claims + "?limit=1")
                .header("Location");
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{}")
                .patch(location)
                .then()
                .statusCode(204)
                .body(emptyString());
        // As Zaqar 15 does: the default ttl (300) from now; a renewal never shortens a message's life (600 + 60).
        Api.as(project)
                .get(location)
                .then()
                .statusCode(200)
                .body("ttl", equalTo(300))
                .body("age", lessThanOrEqualTo(5))
                .body("messages.ttl", everyItem(allOf(greaterThanOrEqualTo(650), lessThanOrEqualTo(665))));
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"grace\": 120}")
                .patch(location)
                .then()
                .statusCode(204);
        Api.as(project).get(location).then().body("ttl", equalTo(300));
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"ttl\": \"300\"}")
                .patch(location)
                .then()
                .statusCode(400)
                .body("description", equalTo("The value of the \"ttl\" field must be a int."));
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("[]")
                .patch(location)
                .then()
                .statusCode(400);
    }

    @Test
    void claimWithoutBodyUsesDefaults() {
        Api.as(project).post(claims + "?limit=1").then().statusCode(201).body("messages.body", contains(0));
    }

    @Test
    void claimOnAQueueThatDoesNotExistFindsNothing() {
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{}")
                .post("/v2/queues/nothing-here/claims")
                .then()
                .statusCode(204);
        Api.as(project).get("/v2/queues").then().body("queues.name", contains("demo-queue"));
    }

    @Test
    void unknownClaims() {
        for (String id : List.of("51db7067821e727dc24df754", "no-such-claim")) {
            Api.as(project)
                    .get(claims + "/" + id)
                    .then()
                    .statusCode(404)
                    .body(
                            "description",
                            equalTo("Claim " + id + " does not exist in queue demo-queue for project " + project));
            Api.as(project)
                    .contentType(ContentType.JSON)
                    .body("{\"ttl\": 100}")
                    .patch(claims + "/" + id)
                    .then()
                    .statusCode(404);
            Api.as(project).delete(claims + "/" + id).then().statusCode(204);
        }
    }

    @Test
    void boundsAndLimits() {
        String ttl = "The TTL for a claim may not exceed 43200 seconds, and must be at least 60 seconds long.";
        String grace = "The grace for a claim may not exceed 43200 seconds, and must be at least 60 seconds long.";
        String limit = "Limit must be at least 1 and may not be greater than 20.";
        record Case(String query, String document, String description) {}
        for (Case c : List.of(
                new Case("", "{\"ttl\": 59, \"grace\": 60}", ttl),
                new Case("", "{\"ttl\": 43201}", ttl),
                new Case("", "{\"ttl\": 60, \"grace\": 43201}", grace),
                new Case("", "{\"grace\": 59}", grace),
                new Case("?limit=21", "{}", limit),
                new Case("?limit=0", "{}", limit),
                new Case("", "{\"ttl\": ", "Request body could not be parsed."))) {
            Api.as(project)
                    .contentType(ContentType.JSON)
                    .body(c.document())
                    .post(claims + c.query())
                    .then()
                    .statusCode(400)
                    .body("description", equalTo(c.description()));
        }
        Api.as(project).get("/v2/queues/demo-queue/stats").then().body("messages.free", equalTo(3));
    }
}
