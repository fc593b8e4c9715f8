package io.pigeon.api.console;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.nullValue;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.tenancy.OidcProfile;
import io.pigeon.tenancy.Tokens;
import io.pigeon.testing.Api;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * With the console's sign-in tenant on (OidcProfile), the API answers as before and the console is reached only
 * through the provider: plain HTTP, no browser (ConsoleOidcBrowserTest signs in).
 */
@QuarkusTest
@TestProfile(OidcProfile.class)
class ConsoleOidcHttpTest {

    private final String project = Api.newProject();

    private static RequestSpecification with(String token) {
        return given().auth()
                .oauth2(token)
                .header("Client-ID", Api.CLIENT_ID)
                .accept(ContentType.JSON)
                .redirects()
                .follow(false);
    }

    @Test
    void theApiStillTakesBearerTokensAndNeverRedirects() {
        String queue = "api-" + Api.newProject().substring(0, 8);
        with(Tokens.valid(List.of(project)))
                .header("X-Project-Id", project)
                .put("/v2/queues/" + queue)
                .then()
                .statusCode(201);
        with(Tokens.valid(List.of(project)))
                .header("X-Project-Id", project)
                .get("/v2/queues")
                .then()
                .statusCode(200)
                .body("queues.name", hasItem(queue));
        for (String path : List.of("/v2/queues", "/v1/queues", "/v2/queues/" + queue + "/stats")) {
            given().redirects()
                    .follow(false)
                    .header("X-Project-Id", project)
                    .header("Client-ID", Api.CLIENT_ID)
                    .get(path)
                    .then()
                    .statusCode(401)
                    .header("Location", nullValue())
                    .header("WWW-Authenticate", containsString("Bearer"))
                    .contentType("application/json")
                    .body("title", equalTo("Unauthorized"));
        }
        with(Tokens.valid(List.of(Api.newProject())))
                .header("X-Project-Id", project)
                .get("/v2/queues")
                .then()
                .statusCode(403)
                .header("Location", nullValue());
    }

    @Test
    void theConsoleWithoutASessionRedirectsToTheProviderWithPkce() {
        String queue = "hidden-" + Api.newProject().substring(0, 8);
        with(Tokens.valid(List.of(project)))
                .header("X-Project-Id", project)
                .put("/v2/queues/" + queue)
                .then()
                .statusCode(201);
        for (String path : List.of(
                "/console", "/console/projects/" + project, "/console/projects/" + project + "/queues/" + queue)) {
            // Neither nothing nor the API's bearer token signs a browser in: both go to the provider.
            for (RequestSpecification request : List.of(
                    given().redirects().follow(false),
                    given().redirects().follow(false).auth().oauth2(Tokens.valid(List.of(project))))) {
                Response answer = request.get(path);
                assertEquals(302, answer.statusCode(), path + ": " + answer.asString());
                String location = answer.header("Location");
                assertTrue(location.contains("/auth/realms/quarkus"), location);
                assertTrue(location.contains("response_type=code"), location);
                assertTrue(location.contains("code_challenge="), location);
                assertTrue(location.contains("code_challenge_method=S256"), location);
                assertTrue(location.contains("redirect_uri=http%3A%2F%2Flocalhost%3A"), location);
                assertTrue(location.contains("%2Fconsole%2Fsigned-in"), location);
                assertTrue(!answer.asString().contains(queue), "no data before sign-in");
                String state = answer.headers().getValues("Set-Cookie").stream()
                        .filter(cookie -> cookie.startsWith("q_auth_console"))
                        .findFirst()
                        .orElseThrow(() -> new AssertionError("no state cookie: " + answer.headers()));
                assertTrue(state.toLowerCase(Locale.ROOT).contains("; httponly"), state);
                assertTrue(state.toLowerCase(Locale.ROOT).contains("; samesite=lax"), state);
                assertTrue(state.contains("Path=/console"), state);
            }
        }
    }

    @Test
    void noSpellingOfAConsolePathTakesTheApisBearerToken() {
        String queue = "spelled-" + Api.newProject().substring(0, 8);
        String token = Tokens.valid(List.of(project));
        with(token)
                .header("X-Project-Id", project)
                .put("/v2/queues/" + queue)
                .then()
                .statusCode(201);
        for (String path : List.of(
                "//console/projects/" + project,
                "/console//projects/" + project,
                "/x/../console/projects/" + project,
                "/console/./projects/" + project + "/queues/" + queue,
                "/%63onsole/projects/" + project)) {
            Response answer = given().redirects()
                    .follow(false)
                    .urlEncodingEnabled(false)
                    .auth()
                    .oauth2(token)
                    .get(path);
            assertTrue(answer.statusCode() == 302 || answer.statusCode() == 404, path + ": " + answer.statusCode());
            assertTrue(!answer.asString().contains(queue), path + " showed the project's data");
        }
    }

    @Test
    void aFormWithoutASessionDoesNothing() {
        String queue = "kept-" + Api.newProject().substring(0, 8);
        with(Tokens.valid(List.of(project)))
                .header("X-Project-Id", project)
                .put("/v2/queues/" + queue)
                .then()
                .statusCode(201);
        String delete = "/console/projects/" + project + "/queues/" + queue + "/delete";
        given().redirects()
                .follow(false)
                .cookie(ConsoleForms.COOKIE, "a".repeat(43))
                .formParam("csrf", "a".repeat(43))
                .post(delete)
                .then()
                .statusCode(302)
                .header("Location", containsString("/auth/realms/quarkus"));
        with(Tokens.valid(List.of(project)))
                .header("X-Project-Id", project)
                .get("/v2/queues/" + queue + "/stats")
                .then()
                .statusCode(200);
    }

    @Test
    void theSignedOutPageNeedsNoSession() {
        given().redirects()
                .follow(false)
                .get("/console/signed-out")
                .then()
                .statusCode(200)
                .header("Content-Security-Policy", equalTo(ConsolePages.CONTENT_SECURITY_POLICY))
                .body(containsString("You are signed out"))
                .body(not(containsString("anyone who can reach")));
        given().redirects()
                .follow(false)
                .get("/console/sign-out")
                .then()
                .statusCode(303)
                .header("Location", startsWith("http"))
                .header("Location", containsString("/console/signed-out"));
    }

    @Test
    void aConsoleCookieTheApiCannotReadNeitherAdmitsNorBlocksABearerToken() {
        String project = Api.newProject();
        // A session cookie that cannot be decrypted (made before the secret changed, or by another deployment).
        for (String cookie : List.of("q_session_console", "q_session_console_chunk_1")) {
            given().cookie(cookie, "garbage")
                    .auth()
                    .oauth2(Tokens.valid(List.of(project)))
                    .header("Client-ID", Api.CLIENT_ID)
                    .header("X-Project-Id", project)
                    .get("/v2/queues")
                    .then()
                    .statusCode(200);
            given().cookie(cookie, "garbage")
                    .header("Client-ID", Api.CLIENT_ID)
                    .header("X-Project-Id", project)
                    .get("/v2/queues")
                    .then()
                    .statusCode(401)
                    .body("description", containsString("bearer token in the Authorization header"));
        }
    }
}
