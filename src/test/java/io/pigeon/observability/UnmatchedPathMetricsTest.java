package io.pigeon.observability;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.testing.Api;
import io.quarkus.test.junit.QuarkusTest;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Requests that match no resource method (405, 400 for a {@code ;param} spelling, 404) leave no trace of their path on
 * /q/metrics: the projects and queues they name never become a {@code uri} tag, and ever new such paths add no series,
 * so they cannot use up the bound on uri tags either; a real endpoint is still tagged with its template afterwards.
 */
@QuarkusTest
class UnmatchedPathMetricsTest {

    private static final String REQUESTS = "http_server_requests_seconds_count{";

    /** Sends one of each unmatched kind naming {@code project} and {@code queue}; every one is refused (4xx). */
    private static void unmatched(String project, String queue) {
        List<Integer> statuses = List.of(
                Api.as(project)
                        .post("/v3/projects/" + project + "/queues/" + queue + "/depth")
                        .statusCode(),
                Api.as(project).get("/v2/queues/" + queue + ";x=1/messages").statusCode(),
                Api.as(project).get("/v2/queues/" + queue + "/stats;" + project).statusCode(),
                Api.as(project).get("/" + project + "/" + queue).statusCode(),
                Api.as(project).patch("/v2/queues/" + queue + "/stats").statusCode(),
                Api.as(project)
                        .delete("/v1/" + project + "/queues/" + queue + "/nothing")
                        .statusCode());
        for (int status : statuses) {
            assertTrue(status >= 400 && status < 500, "refused: " + statuses);
        }
        // Answered 200 for any path, matched or not.
        Api.as(project).options("/" + project + "/" + queue).then().statusCode(200);
    }

    private static List<String> requestSeries() {
        return given().get("/q/metrics")
                .then()
                .statusCode(200)
                .extract()
                .asString()
                .lines()
                .filter(line -> line.startsWith(REQUESTS))
                .toList();
    }

    @Test
    void unmatchedPathsNameNoProjectOrQueueAndAddNoSeries() {
        String project = "acme-corp-" + UUID.randomUUID();
        String queue = "payroll-" + UUID.randomUUID();
        unmatched(project, queue);
        String text = given().get("/q/metrics").then().statusCode(200).extract().asString();
        assertFalse(text.contains(project), "/q/metrics names the project");
        assertFalse(text.contains(queue), "/q/metrics names the queue");

        List<String> before = requestSeries();
        for (int i = 0; i < 120; i++) {
            unmatched("p-" + UUID.randomUUID(), "q-" + i);
        }
        List<String> after = requestSeries();
        assertEquals(before.size(), after.size(), "series after 120 rounds of unmatched paths: " + after);

        // A real endpoint still gets a series of its own, tagged with its template.
        Api.as(project).get("/v2/queues/" + queue + "/stats").then().statusCode(200);
        assertTrue(
                requestSeries().stream()
                        .anyMatch(line -> line.contains("status=\"200\"") && line.contains("/{name}/stats\"")),
                "the stats endpoint's template is a tag: " + requestSeries());
        assertFalse(given().get("/q/metrics").asString().contains(queue), "a matched request is tagged by template");
    }
}
