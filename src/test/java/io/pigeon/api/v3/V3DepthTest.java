package io.pigeon.api.v3;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pigeon.testing.Api;
import io.pigeon.testing.RawHttp;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.http.ContentType;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code GET /v3/projects/{project}/queues/{queue}/depth}, the endpoint of KEDA's metrics-api scaler, with
 * authentication off: no Zaqar header is needed, the counts follow the queue, the path's project decides (never a
 * header), a queue the project does not have has no messages, and odd names are refused with the error document.
 */
@QuarkusTest
class V3DepthTest {

    private final String project = Api.newProject();

    private String depth(String queue) {
        return "/v3/projects/" + project + "/queues/" + queue + "/depth";
    }

    @Test
    void theCountsFollowTheQueueWithoutZaqarHeaders() {
        given().get(depth("orders"))
                .then()
                .statusCode(200)
                .contentType(ContentType.JSON)
                .body("free", equalTo(0))
                .body("claimed", equalTo(0))
                .body("total", equalTo(0));
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"messages\": [{\"ttl\": 300, \"body\": 1}, {\"ttl\": 300, \"body\": 2},"
                        + " {\"ttl\": 300, \"body\": 3}]}")
                .post("/v2/queues/orders/messages")
                .then()
                .statusCode(201);
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"ttl\": 300, \"grace\": 60}")
                .post("/v2/queues/orders/claims?limit=1")
                .then()
                .statusCode(201);
        given().get(depth("orders"))
                .then()
                .statusCode(200)
                .body("free", equalTo(2))
                .body("claimed", equalTo(1))
                .body("total", equalTo(3));
    }

    @Test
    void thePathsProjectDecidesAndAnotherProjectsQueueIsEmpty() {
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"messages\": [{\"ttl\": 300, \"body\": 1}]}")
                .post("/v2/queues/shared/messages")
                .then()
                .statusCode(201);
        String other = Api.newProject();
        given().header("X-Project-Id", project)
                .get("/v3/projects/" + other + "/queues/shared/depth")
                .then()
                .statusCode(200)
                .body("total", equalTo(0));
        given().header("X-Project-Id", other)
                .get(depth("shared"))
                .then()
                .statusCode(200)
                .body("total", equalTo(1));
    }

    @Test
    void oddNamesAreRefusedWithTheErrorDocument() {
        List<Integer> statuses = new ArrayList<>();
        for (String path : List.of(
                depth("bad.name"),
                depth("~topic"),
                depth("x".repeat(65)),
                depth("%2e%2e"),
                depth("a%00b"),
                depth("caf%C3%A9"),
                "/v3/projects/" + "p".repeat(257) + "/queues/orders/depth",
                "/v3/projects/a%01b/queues/orders/depth",
                "/v3/projects/caf%C3%A9/queues/orders/depth")) {
            RawHttp.Answer answer = RawHttp.send(RestAssured.port, "GET", path, Map.of(), null);
            String named = path.contains("/projects/" + project + "/") ? "Queue names" : "project in the path";
            boolean refused = answer.status() == 400 && answer.body().contains(named) || answer.status() == 404;
            if (!refused || !answer.isErrorDocument()) {
                throw new AssertionError("GET " + path + " -> " + answer);
            }
            statuses.add(answer.status());
        }
        // Only the dot segments may be taken by the router for another path; every other name reaches the endpoint.
        assertEquals(8, statuses.stream().filter(status -> status == 400).count(), statuses.toString());
        for (String method : List.of("POST", "PUT", "DELETE", "PATCH")) {
            RawHttp.Answer answer = RawHttp.send(RestAssured.port, method, depth("orders"), Map.of(), "{}");
            if (answer.status() != 405 || !answer.isErrorDocument()) {
                throw new AssertionError(method + " " + depth("orders") + " -> " + answer);
            }
        }
    }
}
