package io.pigeon.api.console;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.endsWith;

import io.pigeon.tenancy.Tokens;
import io.pigeon.testing.Api;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A provider without an end_session_endpoint: Pigeon starts (Quarkus OIDC's own logout path stopped the whole
 * application at start then, API included), the console still sends the browser to sign in, and sign-out ends at the
 * console's signed-out page. A sign-out another site asks for is refused.
 */
@QuarkusTest
@TestProfile(NoEndSessionProfile.class)
class ConsoleWithoutEndSessionTest {

    @Test
    void pigeonStartsTheApiAnswersAndTheConsoleSignsInAndOut() {
        String project = Api.newProject();
        given().auth()
                .oauth2(Tokens.valid(List.of(project)))
                .header("Client-ID", Api.CLIENT_ID)
                .header("X-Project-Id", project)
                .put("/v2/queues/q")
                .then()
                .statusCode(201);
        given().redirects()
                .follow(false)
                .get("/console")
                .then()
                .statusCode(302)
                .header("Location", containsString("/protocol/openid-connect/auth"))
                .header("Location", containsString("code_challenge_method=S256"));
        given().redirects()
                .follow(false)
                .get("/console/sign-out")
                .then()
                .statusCode(303)
                .header("Location", endsWith("/console/signed-out"));
        given().redirects()
                .follow(false)
                .header("Sec-Fetch-Site", "cross-site")
                .get("/console/sign-out")
                .then()
                .statusCode(403);
    }
}
