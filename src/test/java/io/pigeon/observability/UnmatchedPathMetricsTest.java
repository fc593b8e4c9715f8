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
 * Answers are counted by status class only: requests that match no resource method (405, 400 for a {@code ;param}
 * spelling, 404) leave no trace of their path on /q/metrics, the projects and queues they name never show, ever new
 * such paths add no series, and each answer is counted once in its class.
 */
@QuarkusTest
class UnmatchedPathMetricsTest {

    private static final String RESPONSES = "pigeon_http_responses_total{";

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

    private static List<String> responseSeries() {
        return given().get("/q/metrics")
                .then()
                .statusCode(200)
                .extract()
                .asString()
                .lines()
                .filter(line -> line.startsWith(RESPONSES))
                .toList();
    }

    private static double responses(String statusClass) {
        return responseSeries().stream()
                .filter(line -> line.contains("class=\"" + statusClass + "\""))
                .mapToDouble(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
                .sum();
    }

    @Test
    void unmatchedPathsNameNoProjectOrQueueAndAddNoSeries() {
        String project = "acme-corp-" + UUID.randomUUID();
        String queue = "payroll-" + UUID.randomUUID();
        unmatched(project, queue);
        String text = given().get("/q/metrics").then().statusCode(200).extract().asString();
        assertFalse(text.contains(project), "/q/metrics names the project");
        assertFalse(text.contains(queue), "/q/metrics names the queue");

        List<String> before = responseSeries();
        for (int i = 0; i < 120; i++) {
            unmatched("p-" + UUID.randomUUID(), "q-" + i);
        }
        List<String> after = responseSeries();
        assertEquals(5, after.size(), "one series per status class: " + after);
        assertEquals(before.size(), after.size(), "series after 120 rounds of unmatched paths: " + after);
        assertFalse(given().get("/q/metrics").asString().contains(queue), "no path is a tag");
    }

    @Test
    void everyAnswerIsCountedOnceInItsClass() {
        String project = "counted-" + UUID.randomUUID();
        double ok = responses("2xx");
        double refused = responses("4xx");
        Api.as(project).get("/v2/queues/counted/stats").then().statusCode(200);
        Api.as(project).patch("/v2/queues/counted/stats").then().statusCode(405);
        Api.as(project).get("/v2/queues/counted/nothing").then().statusCode(404);
        // At least: the scrapes that read the counts are answered 200 too.
        assertTrue(responses("2xx") >= ok + 2, "the stats answer and the scrapes are counted");
        assertEquals(refused + 2, responses("4xx"));
    }
}
