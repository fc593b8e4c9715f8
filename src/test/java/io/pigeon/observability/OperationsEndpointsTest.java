package io.pigeon.observability;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.testing.Api;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The endpoints operators and their tools read: health, Prometheus metrics, OpenAPI. */
@QuarkusTest
class OperationsEndpointsTest {

    @Test
    void readinessIncludesTheDatabase() {
        given().get("/q/health/ready")
                .then()
                .statusCode(200)
                .body("status", equalTo("UP"))
                .body("checks.name", hasItem(containsString("Reactive PostgreSQL")));
        given().get("/q/health/live").then().statusCode(200).body("status", equalTo("UP"));
    }

    @Test
    void pigeonCountsMessagesAndTimesClaims() {
        double posted = metric("pigeon_messages_posted_total");
        double claimed = metric("pigeon_messages_claimed_total");
        double deleted = metric("pigeon_messages_deleted_total");
        double claims = metric("pigeon_claim_latency_seconds_count");

        String project = Api.newProject();
        Api.as(project)
                .contentType(ContentType.JSON)
                .body(
                        "{\"messages\": [{\"ttl\": 60, \"body\": 1}, {\"ttl\": 60, \"body\": 2}, {\"ttl\": 60, \"body\": 3}]}")
                .post("/v2/queues/metered/messages")
                .then()
                .statusCode(201);
        String href = Api.as(project)
                .contentType(ContentType.JSON)
                .body("{}")
                .post("/v2/queues/metered/claims?limit=2")
                .then()
                .statusCode(201)
                .extract()
                .jsonPath()
                .getString("messages[0].href");
        Api.as(project).delete(href).then().statusCode(204);
        Api.as(project).delete("/v2/queues/metered/messages?pop=5").then().statusCode(200);

        assertEquals(posted + 3, metric("pigeon_messages_posted_total"));
        assertEquals(claimed + 2, metric("pigeon_messages_claimed_total"));
        assertEquals(deleted + 2, metric("pigeon_messages_deleted_total"), "one delete with its claim, one pop");
        assertEquals(claims + 1, metric("pigeon_claim_latency_seconds_count"));
        assertTrue(given().get("/q/metrics").asString().contains("pigeon_http_responses_total{class=\"5xx\"}"));
        assertTrue(given().get("/q/metrics").asString().contains("pigeon_messages_expired_total"));
    }

    @Test
    void openApiDescribesTheRealEndpoints() {
        String document = given().accept("application/json")
                .get("/q/openapi?format=json")
                .then()
                .statusCode(200)
                .extract()
                .asString();
        for (String path : new String[] {
            "/v1/queues/{name}",
            "/v1/queues/{queue}/messages",
            "/v1/queues/{queue}/claims",
            "/v2/queues/{name}",
            "/v2/queues/{queue}/messages",
            "/v2/queues/{queue}/claims/{claimId}",
            "/v2/ping",
            "/v1.1/queues/{name}",
            "/v1.1/queues/{queue}/messages",
            "/v1.1/ping",
            "/v2/topics",
            "/v2/topics/{name}/stats",
            "/v2/topics/{queue}/messages",
            "/v2/topics/{name}/subscriptions/{id}/confirm",
            "/q/metrics/queues"
        }) {
            assertTrue(document.contains("\"" + path + "\""), path + " missing from the OpenAPI document");
        }
        assertTrue(!document.contains("{version}"), "the shared v2/v1.1 resources are listed under each version");
        assertTrue(!document.contains("{collection}"), "the resources queues and topics share are listed under each");
        assertTrue(!document.contains("/v1.1/topics"), "topics are v2 only");
        assertTrue(!document.contains("/q/queue-metrics"), "the per-queue metrics under the path operators scrape");
    }

    private static double metric(String name) {
        String metrics =
                given().get("/q/metrics").then().statusCode(200).extract().asString();
        Matcher matcher = Pattern.compile("(?m)^" + Pattern.quote(name) + "(?:\\{[^}]*\\})? ([0-9.eE+-]+)$")
                .matcher(metrics);
        double total = 0;
        boolean found = false;
        while (matcher.find()) {
            total += Double.parseDouble(matcher.group(1));
            found = true;
        }
        assertTrue(found, name + " is not exported");
        return total;
    }
}
