package io.pigeon.claim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.api.ws.SmallReplicaLimitsProfile;
import io.pigeon.testing.Api;
import io.pigeon.testing.Eventually;
import io.pigeon.waiting.QueueWaits;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.RestAssured;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * Waiting claims are bounded per project and per replica: one more is refused with 429 and an error document. Those of
 * a pre-signed grant count against the grant's own bound (pigeon.signed-url.max-waiters-per-grant), not the project's,
 * so a grant's holder cannot lock the project's own consumers out.
 */
@QuarkusTest
@TestProfile(SmallReplicaLimitsProfile.class)
class LongPollBoundsTest {

    @Inject
    QueueWaits waits;

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private CompletableFuture<HttpResponse<String>> claim(String project, int wait) {
        return claim(Map.of("X-Project-Id", project), wait);
    }

    private CompletableFuture<HttpResponse<String>> claim(Map<String, String> headers, int wait) {
        HttpRequest.Builder request = HttpRequest.newBuilder(
                        URI.create(RestAssured.baseURI + ":" + RestAssured.port + "/v2/queues/bounded/claims"))
                .timeout(Duration.ofSeconds(60))
                .header("Client-ID", Api.CLIENT_ID)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"wait\": " + wait + "}"));
        headers.forEach(request::header);
        return http.sendAsync(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The headers of a grant the project signs to claim from its queue: what the grant's holder sends. */
    private static Map<String, String> grantToClaim(String project) {
        JsonPath grant = Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"paths\": [\"claims\"], \"methods\": [\"POST\"]}")
                .post("/v2/queues/bounded/share")
                .then()
                .statusCode(200)
                .extract()
                .jsonPath();
        return Map.of(
                "X-Project-Id", grant.getString("project"),
                "URL-Signature", grant.getString("signature"),
                "URL-Expires", grant.getString("expires"),
                "URL-Methods", String.join(",", grant.getList("methods", String.class)),
                "URL-Paths", String.join(",", grant.getList("paths", String.class)));
    }

    private static void createQueue(String project) {
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{}")
                .put("/v2/queues/bounded")
                .then()
                .statusCode(201);
    }

    @Test
    void beyondTheBoundsAWaitIsRefusedWith429() throws Exception {
        Eventually.await("no waiter of another test", Duration.ofSeconds(15), () -> waits.waiting() == 0);
        String first = Api.newProject();
        String second = Api.newProject();
        String third = Api.newProject();
        createQueue(first);
        createQueue(second);
        createQueue(third);
        List<CompletableFuture<HttpResponse<String>>> held = new ArrayList<>();
        held.add(claim(first, 5));
        held.add(claim(first, 5));
        Eventually.await("two waiters", Duration.ofSeconds(10), () -> waits.waiting() == 2);

        HttpResponse<String> perProject = claim(first, 5).get();
        assertEquals(429, perProject.statusCode());
        assertTrue(perProject.headers().firstValue("Content-Type").orElse("").startsWith("application/json"));
        assertTrue(perProject.body().contains("pigeon.claim-wait.max-waiters-per-project"), perProject.body());

        held.add(claim(second, 5));
        Eventually.await("three waiters", Duration.ofSeconds(10), () -> waits.waiting() == 3);
        HttpResponse<String> perReplica = claim(third, 5).get();
        assertEquals(429, perReplica.statusCode());
        assertTrue(perReplica.body().contains("pigeon.claim-wait.max-waiters)"), perReplica.body());

        // A claim that finds a message is never refused: only waiting is bounded.
        Api.as(third)
                .contentType(ContentType.JSON)
                .body("{\"messages\": [{\"ttl\": 300, \"body\": 1}]}")
                .post("/v2/queues/bounded/messages")
                .then()
                .statusCode(201);
        assertEquals(201, claim(third, 5).get().statusCode());

        for (CompletableFuture<HttpResponse<String>> waiting : held) {
            assertEquals(204, waiting.get().statusCode());
        }
        assertEquals(0, waits.waiting());
    }

    @Test
    void aGrantsWaitingClaimsCountAgainstTheGrantNotAgainstTheProject() throws Exception {
        Eventually.await("no waiter of another test", Duration.ofSeconds(15), () -> waits.waiting() == 0);
        String owner = Api.newProject();
        createQueue(owner);
        Map<String, String> grant = grantToClaim(owner);
        List<CompletableFuture<HttpResponse<String>>> held = new ArrayList<>();
        held.add(claim(grant, 5));
        held.add(claim(grant, 5));
        Eventually.await("the grant's two waiters", Duration.ofSeconds(10), () -> waits.waiting() == 2);

        // The grant's bound is full: its next waiting claim is refused, naming the bound.
        HttpResponse<String> perGrant = claim(grant, 5).get();
        assertEquals(429, perGrant.statusCode(), perGrant.body());
        assertTrue(perGrant.headers().firstValue("Content-Type").orElse("").startsWith("application/json"));
        assertTrue(perGrant.body().contains("pigeon.signed-url.max-waiters-per-grant"), perGrant.body());

        // The project's own claim still waits: the grant's waiters took none of the project's places.
        held.add(claim(owner, 5));
        Eventually.await("the owner's waiter too", Duration.ofSeconds(10), () -> waits.waiting() == 3);
        for (CompletableFuture<HttpResponse<String>> waiting : held) {
            assertEquals(204, waiting.get().statusCode(), waiting.get().body());
        }
        assertEquals(0, waits.waiting());
        // Once they ended, the grant waits again.
        assertEquals(204, claim(grant, 1).get().statusCode());
    }
}
