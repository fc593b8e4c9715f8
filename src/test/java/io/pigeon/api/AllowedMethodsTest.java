package io.pigeon.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.pigeon.testing.Api;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The Allow table must tell the truth: every listed method is routed, every other one is a 405. */
@QuarkusTest
class AllowedMethodsTest {

    private static final List<String> METHODS = List.of("GET", "HEAD", "PUT", "POST", "DELETE", "PATCH");
    private static final List<String> SAMPLE_PATHS = List.of(
            "/v1/",
            "/v1/health",
            "/v1/queues",
            "/v1/queues/allow-probe",
            "/v1/queues/allow-probe/metadata",
            "/v1/queues/allow-probe/stats",
            "/v1/queues/allow-probe/messages",
            "/v1/queues/allow-probe/messages/000000000000000000000001",
            "/v1/queues/allow-probe/claims",
            "/v1/queues/allow-probe/claims/00000000-0000-0000-0000-000000000001",
            "/",
            "/v2/",
            "/v2/ping",
            "/v2/health",
            "/v2/queues",
            "/v2/queues/allow-probe",
            "/v2/queues/allow-probe/stats",
            "/v2/queues/allow-probe/purge",
            "/v2/queues/allow-probe/messages",
            "/v2/queues/allow-probe/messages/000000000000000000000001",
            "/v2/queues/allow-probe/claims",
            "/v2/queues/allow-probe/claims/00000000-0000-0000-0000-000000000001",
            "/v2/queues/allow-probe/redrive",
            "/v2/queues/allow-probe/redrive/00000000-0000-0000-0000-000000000001",
            "/v2/topics",
            "/v2/topics/allow-probe",
            "/v2/topics/allow-probe/stats",
            "/v2/topics/allow-probe/purge",
            "/v2/topics/allow-probe/messages",
            "/v2/topics/allow-probe/messages/000000000000000000000001",
            "/v2/topics/allow-probe/subscriptions",
            "/v2/topics/allow-probe/subscriptions/000000000000000000000001",
            "/v2/pools",
            "/v2/pools/allow-probe",
            "/v2/flavors",
            "/v2/flavors/allow-probe",
            "/v1/pools",
            "/v1/pools/allow-probe");

    @Test
    void everyListedMethodIsRoutedAndEveryOtherIsNotAllowed() {
        String project = Api.newProject();
        for (String path : SAMPLE_PATHS) {
            Set<String> allowed =
                    Arrays.stream(AllowedMethods.forPath(path).split(",\\s*")).collect(Collectors.toSet());
            for (String method : METHODS) {
                Api.as(project).put("/v1/queues/allow-probe");
                Response response =
                        Api.as(project).contentType(ContentType.JSON).body("{}").request(method, path);
                if (allowed.contains(method)) {
                    assertNotEquals(405, response.statusCode(), method + " " + path);
                } else {
                    assertEquals(405, response.statusCode(), method + " " + path);
                    assertEquals(AllowedMethods.forPath(path), response.header("Allow"), method + " " + path);
                }
            }
        }
    }
}
