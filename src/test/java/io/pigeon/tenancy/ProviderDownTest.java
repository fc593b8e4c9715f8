package io.pigeon.tenancy;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.anyOf;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.notNullValue;
import static org.hamcrest.Matchers.nullValue;

import io.pigeon.testing.Api;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * With the OIDC provider unreachable, no token can be checked: every protected call is refused with the
 * error document (401, or 503 for "try again"), never a 500, and the open endpoints still answer.
 */
@QuarkusTest
@TestProfile(ProviderDownDispatcherOffProfile.class)
class ProviderDownTest {

    @Test
    void aForgedTokenIsRefusedWithTheErrorDocumentNotA500() {
        for (String token : List.of(Tokens.valid(List.of("p")), "forged.token.value", "x")) {
            for (String path : List.of("/v2/queues", "/v1/queues", "/v3/dead-groups")) {
                given().auth()
                        .oauth2(token)
                        .header("X-Project-Id", "p")
                        .header("Client-ID", Api.CLIENT_ID)
                        .get(path)
                        .then()
                        .statusCode(anyOf(equalTo(401), equalTo(503)))
                        .contentType("application/json")
                        .body("title", notNullValue())
                        .body("description", notNullValue());
            }
        }
        given().header("X-Project-Id", "p").get("/v2/queues").then().statusCode(401);
        given().get("/v1/health").then().statusCode(204);
    }

    @Test
    void withoutASessionSecretTheConsoleIsOffAndPigeonRuns() {
        // OIDC mode, the console on by default, no pigeon.console.session-secret: Pigeon started (this class runs), and
        // every console address answers the API's 404 document saying why, with no page and no cookie.
        for (String path : List.of("/console", "/console/projects/p", "/console/projects/p/queues/q/post")) {
            given().redirects()
                    .follow(false)
                    .get(path)
                    .then()
                    .statusCode(404)
                    .contentType("application/json")
                    .header("Set-Cookie", nullValue())
                    .body("description", containsString("PIGEON_CONSOLE_SESSION_SECRET"));
        }
    }
}
