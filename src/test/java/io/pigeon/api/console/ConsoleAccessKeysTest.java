package io.pigeon.api.console;

import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.testing.Api;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.response.Response;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * A project's SQS access keys page, over plain HTTP with authentication off: a key made by the form is shown with its
 * secret in that answer only, listed afterwards without it, and revoked by its form; another project's key cannot be
 * revoked from this project's page, and a form without the browser's token does nothing.
 */
@QuarkusTest
class ConsoleAccessKeysTest {

    private static final String TOKEN = "k".repeat(43);
    private static final Pattern CREATED = Pattern.compile(
            "<code id=\"created-id\">(PGNK[A-Z2-7]{16})</code>.*<code id=\"created-secret\">([A-Za-z0-9+/]{40})</code>",
            Pattern.DOTALL);

    private static Response form(String path, String token) {
        return RestAssured.given()
                .cookie(ConsoleForms.COOKIE, TOKEN)
                .contentType("application/x-www-form-urlencoded")
                .body("csrf=" + token)
                .redirects()
                .follow(false)
                .post(path);
    }

    @Test
    void aKeyIsMadeShownOnceListedAndRevoked() {
        String project = Api.newProject();
        String page = "/console/projects/" + project + "/access-keys";
        RestAssured.get(page)
                .then()
                .statusCode(200)
                .header("Cache-Control", "no-store")
                .body(containsString("No access key."));

        String made = form(page, TOKEN).then().statusCode(201).extract().asString();
        Matcher created = CREATED.matcher(made);
        assertTrue(created.find(), made);
        String id = created.group(1);
        String secret = created.group(2);

        RestAssured.get(page)
                .then()
                .statusCode(200)
                .body(containsString(id))
                .body(not(containsString(secret)))
                .body(containsString(page + "/" + id + "/revoke"));
        Api.as(project).get("/v2/access-keys").then().statusCode(200).body("access_keys[0].access_key_id", equalTo(id));

        // without the browser's token nothing is done
        assertEquals(403, form(page + "/" + id + "/revoke", "x".repeat(43)).statusCode());
        Api.as(project).get("/v2/access-keys").then().body("access_keys[0].revoked", nullValue());

        form(page + "/" + id + "/revoke", TOKEN)
                .then()
                .statusCode(303)
                .header("Location", containsString(page + "?done=revoked"));
        RestAssured.get(page + "?done=revoked")
                .then()
                .statusCode(200)
                .body(containsString("The access key was revoked"))
                .body(not(containsString(page + "/" + id + "/revoke")));
    }

    @Test
    void anotherProjectsKeyIsNotFoundFromThisProjectsPage() {
        String theirs = Api.newProject();
        String id = Api.as(theirs)
                .post("/v2/access-keys")
                .then()
                .statusCode(201)
                .extract()
                .path("access_key_id");
        String mine = Api.newProject();
        form("/console/projects/" + mine + "/access-keys/" + id + "/revoke", TOKEN)
                .then()
                .statusCode(404);
        Api.as(theirs).get("/v2/access-keys").then().body("access_keys[0].revoked", nullValue());
    }
}
