package io.pigeon.tenancy;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.not;

import io.pigeon.testing.Api;
import io.pigeon.testing.Eventually;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * /q/metrics/queues names tenants' projects and queues, so in OIDC mode it is not open as /q/metrics is: a token is
 * required, a project's token reads its own project only (another project named is 403, as elsewhere), the operator
 * reads every project.
 */
@QuarkusTest
@TestProfile(OidcProfile.class)
class QueueMetricsOidcTest {

    private static final String PATH = "/q/metrics/queues";

    private final String mine = Api.newProject();
    private final String theirs = Api.newProject();

    private void post(String project) {
        given().auth()
                .oauth2(Tokens.valid(project))
                .header("Client-ID", Api.CLIENT_ID)
                .contentType(ContentType.JSON)
                .body("{\"messages\": [{\"ttl\": 300, \"body\": 1}]}")
                .post("/v2/queues/watched/messages")
                .then()
                .statusCode(201);
    }

    @Test
    void onlyTheOperatorReadsEveryProjectAndAProjectReadsItsOwn() {
        post(mine);
        post(theirs);
        String operator = Tokens.valid(List.of(), "pigeon-operator");
        Eventually.await("both queues sampled", Duration.ofSeconds(15), () -> {
            String all = given().auth()
                    .oauth2(operator)
                    .get(PATH)
                    .then()
                    .statusCode(200)
                    .extract()
                    .asString();
            return all.contains("pigeon_queue_messages{project=\"" + mine + "\",queue=\"watched\",state=\"ready\"} 1")
                    && all.contains(
                            "pigeon_queue_messages{project=\"" + theirs + "\",queue=\"watched\",state=\"ready\"} 1");
        });

        given().get(PATH).then().statusCode(401).contentType(ContentType.JSON);
        given().auth().oauth2("not-a-token").get(PATH).then().statusCode(401);
        given().get(PATH + "?project=" + mine).then().statusCode(401);

        String token = Tokens.valid(mine);
        given().auth()
                .oauth2(token)
                .get(PATH)
                .then()
                .statusCode(200)
                .body(containsString("project=\"" + mine + "\""))
                .body(not(containsString(theirs)));
        given().auth().oauth2(token).get(PATH + "?project=" + mine).then().statusCode(200);
        given().auth()
                .oauth2(token)
                .get(PATH + "?project=" + theirs)
                .then()
                .statusCode(403)
                .contentType(ContentType.JSON)
                .body("title", equalTo("Forbidden"));
        given().auth()
                .oauth2(token)
                .get(PATH + "?project=" + mine + "&project=" + theirs)
                .then()
                .statusCode(403);
        // The X-Project-Id header is the token's to grant, here as anywhere.
        given().auth()
                .oauth2(token)
                .header("X-Project-Id", theirs)
                .get(PATH)
                .then()
                .statusCode(403);
        // A token of two projects names the one it acts for, as on every call.
        String both = Tokens.valid(List.of(mine, theirs));
        given().auth().oauth2(both).get(PATH).then().statusCode(400);
        given().auth()
                .oauth2(both)
                .header("X-Project-Id", theirs)
                .get(PATH)
                .then()
                .statusCode(200)
                .body(containsString(theirs))
                .body(not(containsString(mine)));
        // /q/metrics stays open: it names no project.
        given().get("/q/metrics").then().statusCode(200).body(not(containsString(mine)));
    }
}
