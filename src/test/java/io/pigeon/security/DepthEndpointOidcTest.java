package io.pigeon.security;

import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.tenancy.OidcProfile;
import io.pigeon.tenancy.Tokens;
import io.pigeon.testing.Api;
import io.pigeon.testing.RawHttp;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.RestAssured;
import io.restassured.http.ContentType;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The depth endpoint of KEDA's metrics-api scaler in OIDC mode: the bearer token must grant the project in the path
 * (a header naming another project changes nothing), in every spelling of the path; nothing of another project's queue
 * is shown; a pre-signed URL opens nothing here.
 */
@QuarkusTest
@TestProfile(OidcProfile.class)
class DepthEndpointOidcTest {

    private final String owner = Api.newProject();
    private final String stranger = Api.newProject();

    private String depth(String project) {
        return "/v3/projects/" + project + "/queues/" + Endpoints.QUEUE + "/depth";
    }

    private static Map<String, String> bearer(String token) {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Accept", "application/json");
        if (token != null) {
            headers.put("Authorization", "Bearer " + token);
        }
        return headers;
    }

    @Test
    void theTokenMustGrantThePathsProject() {
        Api.as(owner)
                .header("Authorization", "Bearer " + Tokens.valid(List.of(owner)))
                .contentType(ContentType.JSON)
                .body("{\"messages\": [{\"ttl\": 300, \"body\": 1}, {\"ttl\": 300, \"body\": 2}]}")
                .post("/v2/queues/" + Endpoints.QUEUE + "/messages")
                .then()
                .statusCode(201);
        RestAssured.given()
                .header("Authorization", "Bearer " + Tokens.valid(List.of(owner, stranger)))
                .get(depth(owner))
                .then()
                .statusCode(200)
                .body("free", equalTo(2))
                .body("total", equalTo(2));
        // The header names the stranger's project, the path the owner's: the path decides.
        RestAssured.given()
                .header("Authorization", "Bearer " + Tokens.valid(List.of(owner)))
                .header("X-Project-Id", stranger)
                .get(depth(owner))
                .then()
                .statusCode(200)
                .body("free", equalTo(2));
        RestAssured.given()
                .header("Authorization", "Bearer " + Tokens.valid(List.of(stranger)))
                .header("X-Project-Id", stranger)
                .get(depth(owner))
                .then()
                .statusCode(403)
                .body("description", containsString(owner));
        RestAssured.given()
                .header("Authorization", "Bearer " + Tokens.valid(List.of(stranger)))
                .get(depth(stranger))
                .then()
                .statusCode(200)
                .body("total", equalTo(0));
        RestAssured.given()
                .header("Authorization", "Bearer " + Tokens.expired(List.of(owner)))
                .get(depth(owner))
                .then()
                .statusCode(401)
                .header("WWW-Authenticate", containsString("Bearer"));
        RestAssured.given()
                .header("Authorization", "Bearer " + Tokens.valid(List.of(stranger), "pigeon-operator"))
                .get(depth(owner))
                .then()
                .statusCode(200)
                .body("free", equalTo(2));
    }

    @Test
    void noSpellingIsServedWithoutTheProjectsToken() {
        List<String> failures = new ArrayList<>();
        for (String path : Endpoints.spellings(depth(owner))) {
            for (String token : new String[] {null, Tokens.valid(List.of(stranger)), "garbage"}) {
                RawHttp.Answer answer = RawHttp.send(RestAssured.port, "GET", path, bearer(token), null);
                if (!Set.of(401, 403, 404, 405).contains(answer.status()) || !answer.isErrorDocument()) {
                    failures.add((token == null ? "no token" : "token") + " GET " + path + " -> " + answer);
                }
            }
        }
        // A pre-signed URL's headers stand in for a token only on the resources a grant can open: not here.
        Map<String, String> signed = bearer(null);
        signed.put("URL-Signature", "0".repeat(64));
        signed.put("URL-Expires", "2099-01-01T00:00:00");
        signed.put("URL-Methods", "GET");
        signed.put("URL-Paths", depth(owner));
        signed.put("X-Project-Id", owner);
        RawHttp.Answer answer = RawHttp.send(RestAssured.port, "GET", depth(owner), signed, null);
        if (answer.status() != 404 || !answer.isErrorDocument()) {
            failures.add("signed GET " + depth(owner) + " -> " + answer);
        }
        assertTrue(failures.isEmpty(), String.join("\n", failures));
    }
}
