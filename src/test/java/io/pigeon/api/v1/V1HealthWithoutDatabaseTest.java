package io.pigeon.api.v1;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.emptyString;
import static org.hamcrest.Matchers.equalTo;

import io.pigeon.testing.Api;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** With the database unreachable, health says so and data requests fail with 503, never 500. */
@QuarkusTest
@TestProfile(V1HealthWithoutDatabaseTest.ClosedPortDatabase.class)
class V1HealthWithoutDatabaseTest {

    /**
     * Points the datasource at a port nobody listens on, and skips the start-up migration that needs it.
     * The sweeper and the vacuum are off: this also proves Pigeon starts with them turned off.
     */
    public static class ClosedPortDatabase implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of(
                    "quarkus.datasource.reactive.url", "postgresql://127.0.0.1:1/pigeon",
                    "quarkus.datasource.username", "nobody",
                    "quarkus.datasource.password", "nothing",
                    "quarkus.flyway.migrate-at-start", "false",
                    "pigeon.sweeper.interval", "off",
                    "pigeon.vacuum.interval", "off");
        }

        @Override
        public boolean disableGlobalTestResources() {
            return true;
        }
    }

    @Test
    void healthIsServiceUnavailable() {
        given().get("/v1/health")
                .then()
                .statusCode(503)
                .contentType("application/json")
                .body("title", equalTo("Service temporarily unavailable"));
        given().head("/v1/health").then().statusCode(503);
    }

    @Test
    void queueRequestsAreServiceUnavailableNotServerErrors() {
        Api.as(Api.newProject())
                .put("/v1/queues/any")
                .then()
                .statusCode(503)
                .contentType("application/json")
                .body("title", equalTo("Service temporarily unavailable"));
        Api.as(Api.newProject()).get("/v1/queues").then().statusCode(503);
    }

    /** As in Zaqar, v2 ping asks the store: 503 when it does not answer; HEAD does not ask (204). */
    @Test
    void pingIsServiceUnavailable() {
        Api.as(Api.newProject()).get("/v2/ping").then().statusCode(503).body(emptyString());
        Api.as(Api.newProject()).head("/v2/ping").then().statusCode(204);
    }

    @Test
    void readinessIsDownWhileLivenessStaysUp() {
        given().get("/q/health/ready").then().statusCode(503).body("status", equalTo("DOWN"));
        given().get("/q/health/live").then().statusCode(200).body("status", equalTo("UP"));
    }
}
