package io.pigeon.tenancy;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.testing.Api;
import io.pigeon.testing.Slow;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

@QuarkusTest
@TestProfile(OidcProfile.class)
class OidcTenancyTest {

    private final String projectA = Api.newProject();
    private final String projectB = Api.newProject();

    private static RequestSpecification with(String token) {
        return given().auth().oauth2(token).header("Client-ID", Api.CLIENT_ID).accept(ContentType.JSON);
    }

    @Test
    void noTokenIsUnauthorizedWithChallengeAndErrorDocument() {
        for (String path : List.of(
                "/v1/queues",
                "/v2/queues",
                "/v2/ping",
                "/v2/queues/q/subscriptions",
                "/v3/dead-groups",
                "/v3/queue/k/POST/aHR0cDovLzEyNy4wLjAuMTo5L3g")) {
            given().header("X-Project-Id", projectA)
                    .header("Client-ID", Api.CLIENT_ID)
                    .get(path)
                    .then()
                    .statusCode(401)
                    .header("WWW-Authenticate", containsString("Bearer"))
                    .contentType("application/json")
                    .body("title", equalTo("Unauthorized"))
                    .body("description", containsString("bearer token"));
        }
    }

    @Test
    void expiredMalformedAndForeignTokensAreUnauthorized() {
        for (String token : List.of(
                Tokens.expired(List.of(projectA)),
                "not.a.token",
                Tokens.fromIssuer("https://evil.example.com", List.of(projectA)))) {
            with(token)
                    .header("X-Project-Id", projectA)
                    .get("/v2/queues")
                    .then()
                    .statusCode(401)
                    .header("WWW-Authenticate", containsString("Bearer"))
                    .body("title", equalTo("Unauthorized"));
        }
    }

    @Test
    void aTokenMeantForAnotherAudienceIsUnauthorized() {
        for (String token : List.of(
                Tokens.forAudience("account", List.of(projectA)),
                Tokens.forAudience("another-service", List.of(projectA)),
                Tokens.withoutAudience(List.of(projectA)))) {
            with(token)
                    .header("X-Project-Id", projectA)
                    .get("/v2/queues")
                    .then()
                    .statusCode(401)
                    .contentType("application/json")
                    .body("title", equalTo("Unauthorized"));
        }
        with(Tokens.forAudience(OidcProfile.AUDIENCE, List.of(projectA)))
                .header("X-Project-Id", projectA)
                .get("/v2/queues")
                .then()
                .statusCode(200);
    }

    /**
     * Redrive is a queue change like a purge: any token granted the project may start, list, read and cancel its tasks;
     * a token of another project is 403 for the project and sees nothing of it; the operator may act for any project.
     */
    @Test
    void aRedriveIsTheProjectsOwnAndTheOperators() {
        String own = Tokens.valid(List.of(projectA));
        with(own)
                .header("X-Project-Id", projectA)
                .contentType(ContentType.JSON)
                .body("{\"messages\": [{\"ttl\": 600, \"body\": 1}]}")
                .post("/v2/queues/dlq/messages")
                .then()
                .statusCode(201);
        with(own).header("X-Project-Id", projectA).put("/v2/queues/back").then().statusCode(201);
        String href = with(own)
                .header("X-Project-Id", projectA)
                .contentType(ContentType.JSON)
                .body("{\"target\": \"back\", \"rate\": 1}")
                .post("/v2/queues/dlq/redrive")
                .then()
                .statusCode(201)
                .extract()
                .header("Location");
        String foreign = Tokens.valid(List.of(projectB));
        with(foreign)
                .header("X-Project-Id", projectA)
                .contentType(ContentType.JSON)
                .body("{}")
                .post("/v2/queues/dlq/redrive")
                .then()
                .statusCode(403);
        with(foreign).header("X-Project-Id", projectA).get(href).then().statusCode(403);
        with(foreign).header("X-Project-Id", projectA).delete(href).then().statusCode(403);
        with(foreign).header("X-Project-Id", projectB).get(href).then().statusCode(404);
        with(foreign).header("X-Project-Id", projectB).delete(href).then().statusCode(404);
        with(own)
                .header("X-Project-Id", projectA)
                .get(href)
                .then()
                .statusCode(200)
                .body("state", equalTo("running"));
        with(Tokens.valid(List.of(), "pigeon-operator"))
                .header("X-Project-Id", projectA)
                .delete(href)
                .then()
                .statusCode(204);
        with(own)
                .header("X-Project-Id", projectA)
                .get(href)
                .then()
                .statusCode(200)
                .body("state", equalTo("cancelled"));
    }

    @Test
    void openEndpointsNeedNoToken() {
        given().get("/q/health/ready").then().statusCode(200);
        given().get("/q/health/live").then().statusCode(200);
        given().get("/v1/health").then().statusCode(204);
        given().get("/q/metrics").then().statusCode(200);
        given().get("/q/openapi").then().statusCode(200);
        given().accept(ContentType.JSON).get("/v2/").then().statusCode(200);
        given().accept(ContentType.JSON).get("/").then().statusCode(300);
    }

    @Test
    void aTokenForProjectAUsedOnProjectBIsForbidden() {
        String tokenA = Tokens.valid(List.of(projectA));
        with(tokenA)
                .header("X-Project-Id", projectA)
                .put("/v2/queues/jobs")
                .then()
                .statusCode(201);
        with(tokenA)
                .header("X-Project-Id", projectB)
                .put("/v2/queues/jobs")
                .then()
                .statusCode(403)
                .contentType("application/json")
                .body("title", equalTo("Forbidden"))
                .body("description", containsString(projectB));
        with(tokenA).header("X-Project-Id", projectB).get("/v1/queues").then().statusCode(403);
    }

    @Test
    void aStringClaimNamesOneProjectUsedWithoutTheHeader() {
        String token = Tokens.valid(projectA);
        with(token).put("/v2/queues/implicit").then().statusCode(201);
        with(token)
                .header("X-Project-Id", projectA)
                .get("/v2/queues")
                .then()
                .statusCode(200)
                .body("queues.name", equalTo(List.of("implicit")));
        with(token).put("/v1/queues/implicit-v1").then().statusCode(201);
        with(token)
                .get("/v1/queues")
                .then()
                .statusCode(200)
                .body("queues.name", equalTo(List.of("implicit", "implicit-v1")));
    }

    @Test
    void anArrayClaimWithSeveralProjectsNeedsTheHeader() {
        String token = Tokens.valid(List.of(projectA, projectB));
        with(token)
                .put("/v2/queues/ambiguous")
                .then()
                .statusCode(400)
                .body("title", equalTo("Project-Id Missing"))
                .body("description", containsString("2 projects"));
        with(token)
                .header("X-Project-Id", projectA)
                .put("/v2/queues/one")
                .then()
                .statusCode(201);
        with(token)
                .header("X-Project-Id", projectB)
                .put("/v2/queues/two")
                .then()
                .statusCode(201);
    }

    /** The home document is open; its admin block is shown to a token with the operator role only. */
    @Test
    void theHomeDocumentShowsTheAdminBlockToTheOperatorOnly() {
        given().accept("application/json-home")
                .get("/v2/")
                .then()
                .statusCode(200)
                .body(not(containsString("rel/health")));
        with(Tokens.valid(List.of(projectA)))
                .get("/v2/")
                .then()
                .statusCode(200)
                .body(not(containsString("rel/health")));
        with(Tokens.valid(List.of(), "pigeon-operator"))
                .get("/v2/")
                .then()
                .statusCode(200)
                .header("Cache-Control", containsString("private"))
                .body(containsString("rel/health"));
        // A bad token on an open method is simply anonymous.
        given().auth().oauth2("not-a-token").get("/v2/").then().statusCode(200).body(not(containsString("rel/health")));
        given().header("X-Roles", "admin").get("/v2/").then().statusCode(200).body(not(containsString("rel/health")));
    }

    /** In OIDC mode a pre-signed URL stands in for a token, for exactly the paths and methods it grants. */
    @Test
    void aSignedUrlStandsInForATokenForWhatItGrants() {
        String token = Tokens.valid(List.of(projectA));
        with(token)
                .header("X-Project-Id", projectA)
                .contentType(ContentType.JSON)
                .body("{\"messages\": [{\"body\": \"signed\"}]}")
                .post("/v2/queues/shared/messages")
                .then()
                .statusCode(201);
        var grant = with(token)
                .header("X-Project-Id", projectA)
                .contentType(ContentType.JSON)
                .body("{}")
                .post("/v2/queues/shared/share")
                .then()
                .statusCode(200)
                .extract()
                .jsonPath();
        Supplier<RequestSpecification> signed = () -> given().header("Client-ID", Api.CLIENT_ID)
                .header("X-Project-Id", projectA)
                .header("URL-Signature", grant.getString("signature"))
                .header("URL-Expires", grant.getString("expires"))
                .header("URL-Methods", "GET")
                .header("URL-Paths", grant.getList("paths", String.class).get(0))
                .accept(ContentType.JSON);
        signed.get()
                .get("/v2/queues/shared/messages?echo=true")
                .then()
                .statusCode(200)
                .body("messages.body", contains("signed"));
        signed.get().get("/v2/queues/shared/stats").then().statusCode(404);
        signed.get().get("/v2/queues").then().statusCode(404);
        given().header("Client-ID", Api.CLIENT_ID)
                .header("X-Project-Id", projectA)
                .get("/v2/queues/shared/messages")
                .then()
                .statusCode(401);
    }

    /**
     * openstacksdk and gophercloud send the token as X-Auth-Token, and gophercloud sends no X-Project-Id: the
     * token's only project is used, and a token of several projects is told which to name.
     */
    @Test
    void keystoneStyleClientsSendTheTokenAsXAuthToken() {
        given().header("X-Auth-Token", Tokens.valid(List.of(projectA)))
                .header("Client-ID", Api.CLIENT_ID)
                .put("/v2/queues/keystone-style")
                .then()
                .statusCode(201);
        with(Tokens.valid(List.of(projectA)))
                .header("X-Project-Id", projectA)
                .get("/v2/queues")
                .then()
                .statusCode(200)
                .body("queues.name", contains("keystone-style"));
        given().header("X-Auth-Token", Tokens.valid(List.of(projectA, projectB)))
                .header("Client-ID", Api.CLIENT_ID)
                .get("/v2/queues")
                .then()
                .statusCode(400)
                .body("description", containsString(projectA))
                .body("description", containsString(projectB));
        given().header("X-Auth-Token", Tokens.valid(List.of(projectA, projectB)))
                .header("Client-ID", Api.CLIENT_ID)
                .header("X-Project-Id", projectB)
                .get("/v2/queues")
                .then()
                .statusCode(200);
        given().header("X-Auth-Token", "not-a-token")
                .header("Client-ID", Api.CLIENT_ID)
                .get("/v2/queues")
                .then()
                .statusCode(401);
        given().header("X-Auth-Token", Tokens.valid(List.of(projectB)))
                .header("X-Project-Id", projectA)
                .header("Client-ID", Api.CLIENT_ID)
                .get("/v2/queues")
                .then()
                .statusCode(403);
    }

    @Test
    void aTokenWithoutProjectsCanDoNothing() {
        with(Tokens.valid(null))
                .header("X-Project-Id", projectA)
                .get("/v2/queues")
                .then()
                .statusCode(403);
    }

    @Test
    void theOperatorMayUseAnyProjectAndTheHealthReport() {
        String operator = Tokens.valid(List.of(), "pigeon-operator");
        with(operator)
                .header("X-Project-Id", projectB)
                .put("/v2/queues/ops")
                .then()
                .statusCode(201);
        with(operator)
                .header("X-Project-Id", projectB)
                .get("/v2/health")
                .then()
                .statusCode(200)
                .body("storage_reachable", equalTo(true));
        // A role header is not believed in OIDC mode: only the token's roles count.
        with(Tokens.valid(List.of(projectA)))
                .header("X-Project-Id", projectA)
                .header("X-Roles", "admin")
                .get("/v2/health")
                .then()
                .statusCode(403);
    }

    /** A caller of project A can never list, read, claim, delete or get stats of project B's queues or messages. */
    @Test
    void crossProjectMatrix() {
        assertCrossProjectMatrix(projectA, projectB);
    }

    /**
     * The matrix again while two other projects keep posting to, claiming from and deleting in queues of the
     * same names; each load client also checks that it only ever receives its own project's messages.
     */
    @Test
    @Slow
    void crossProjectMatrixHoldsUnderLoadFromOtherProjects() throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger operations = new AtomicInteger();
        List<String> leaks = Collections.synchronizedList(new ArrayList<>());
        ExecutorService load = Executors.newFixedThreadPool(8);
        List<Future<?>> clients = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            String project = Api.newProject();
            String token = Tokens.valid(List.of(project));
            clients.add(load.submit(() -> {
                while (!stop.get()) {
                    with(token)
                            .contentType(ContentType.JSON)
                            .body("{\"messages\": [{\"ttl\": 300, \"body\": \"" + project + "\"}]}")
                            .post("/v2/queues/private/messages")
                            .then()
                            .statusCode(201);
                    Response claimed = with(token)
                            .contentType(ContentType.JSON)
                            .body("{\"ttl\": 60}")
                            .post("/v2/queues/private/claims?limit=5");
                    if (claimed.statusCode() == 201) {
                        for (Object body : claimed.jsonPath().getList("messages.body")) {
                            if (!project.equals(body)) {
                                leaks.add(project + " received " + body);
                            }
                        }
                        for (String href : claimed.jsonPath().<String>getList("messages.href")) {
                            with(token).delete(href).then().statusCode(204);
                        }
                    }
                    operations.incrementAndGet();
                }
                return null;
            }));
        }
        try {
            for (int round = 0; round < 3; round++) {
                assertCrossProjectMatrix(Api.newProject(), Api.newProject());
            }
        } finally {
            stop.set(true);
            for (Future<?> client : clients) {
                client.get();
            }
            load.shutdown();
        }
        System.out.printf(
                "Isolation under load: 3 rounds of the matrix beside %d post-claim-delete rounds of 8 other "
                        + "projects; leaks %d%n",
                operations.get(), leaks.size());
        assertTrue(operations.get() > 8, "the load did not run");
        assertEquals(List.of(), leaks);
    }

    private void assertCrossProjectMatrix(String projectA, String projectB) {
        String tokenA = Tokens.valid(List.of(projectA));
        String tokenB = Tokens.valid(List.of(projectB));
        with(tokenB)
                .header("X-Project-Id", projectB)
                .contentType(ContentType.JSON)
                .body("{\"messages\": [{\"ttl\": 300, \"body\": \"secret\"}]}")
                .post("/v2/queues/private/messages")
                .then()
                .statusCode(201);
        String href = with(tokenB)
                .header("X-Project-Id", projectB)
                .get("/v2/queues/private/messages?echo=true")
                .jsonPath()
                .getString("messages[0].href");
        String v1Href = href.replace("/v2/", "/v1/");

        // With B's header, A's token is refused outright, for every operation.
        List<Response> withForeignHeader = List.of(
                with(tokenA).header("X-Project-Id", projectB).get("/v2/queues"),
                with(tokenA).header("X-Project-Id", projectB).get("/v2/queues/private"),
                with(tokenA).header("X-Project-Id", projectB).get("/v2/queues/private/stats"),
                with(tokenA).header("X-Project-Id", projectB).get("/v2/queues/private/messages?echo=true"),
                with(tokenA).header("X-Project-Id", projectB).get(href),
                with(tokenA)
                        .header("X-Project-Id", projectB)
                        .contentType(ContentType.JSON)
                        .body("{}")
                        .post("/v2/queues/private/claims"),
                with(tokenA).header("X-Project-Id", projectB).delete("/v2/queues/private/messages?pop=1"),
                with(tokenA).header("X-Project-Id", projectB).delete(href),
                with(tokenA).header("X-Project-Id", projectB).delete("/v2/queues/private"),
                with(tokenA).header("X-Project-Id", projectB).get("/v1/queues/private/stats"),
                with(tokenA).header("X-Project-Id", projectB).get(v1Href));
        for (Response response : withForeignHeader) {
            assertEquals(403, response.statusCode(), response.asString());
        }
        // Under its own project, A sees none of B's data.
        with(tokenA).header("X-Project-Id", projectA).get("/v2/queues").then().body("queues.size()", equalTo(0));
        with(tokenA)
                .header("X-Project-Id", projectA)
                .get("/v2/queues/private/messages?echo=true")
                .then()
                .body("messages.size()", equalTo(0));
        with(tokenA).header("X-Project-Id", projectA).get(href).then().statusCode(404);
        with(tokenA)
                .header("X-Project-Id", projectA)
                .contentType(ContentType.JSON)
                .body("{}")
                .post("/v2/queues/private/claims")
                .then()
                .statusCode(204);
        with(tokenA).header("X-Project-Id", projectA).delete(href).then().statusCode(204);
        with(tokenA)
                .header("X-Project-Id", projectA)
                .get("/v1/queues/private/stats")
                .then()
                .statusCode(404);

        // Delayed dispatch and subscriptions follow the same rule.
        // A day ahead: never due during the test, within the ontime horizon.
        String path =
                "/v3/queue/k/POST/aHR0cDovLzEyNy4wLjAuMTo5L3g?ontime=" + (System.currentTimeMillis() / 1000 + 86_400);
        with(tokenB)
                .header("X-Project-Id", projectB)
                .contentType(ContentType.JSON)
                .body("{\"b\": 1}")
                .post(path)
                .then()
                .statusCode(201);
        with(tokenB)
                .header("X-Project-Id", projectB)
                .contentType(ContentType.JSON)
                .body("{\"subscriber\": \"mailto:b@example.com\"}")
                .post("/v2/queues/private/subscriptions")
                .then()
                .statusCode(201);
        for (Response response : List.of(
                with(tokenA).header("X-Project-Id", projectB).get(path),
                with(tokenA).header("X-Project-Id", projectB).delete(path),
                with(tokenA).header("X-Project-Id", projectB).get("/v3/dead-groups"),
                with(tokenA).header("X-Project-Id", projectB).get("/v2/queues/private/subscriptions"))) {
            assertEquals(403, response.statusCode(), response.asString());
        }
        with(tokenA).get(path).then().statusCode(200).body("groups.size()", equalTo(0));
        with(tokenA).delete(path).then().statusCode(204);
        with(tokenA).get("/v2/queues/private/subscriptions").then().body("subscriptions.size()", equalTo(0));
        with(tokenB).get(path).then().statusCode(200).body("groups[0].items[0].body.b", equalTo(1));
        with(tokenB).get("/v2/queues/private/subscriptions").then().body("subscriptions.size()", equalTo(1));

        // B's message is untouched.
        with(tokenB)
                .header("X-Project-Id", projectB)
                .get(href)
                .then()
                .statusCode(200)
                .body("body", equalTo("secret"));
        Response stats = with(tokenB).header("X-Project-Id", projectB).get("/v2/queues/private/stats");
        assertEquals(1, stats.jsonPath().getInt("messages.free"));
        assertNotEquals(projectA, projectB);
    }
}
