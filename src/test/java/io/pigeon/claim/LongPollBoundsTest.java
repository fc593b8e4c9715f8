package io.pigeon.claim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.testing.Api;
import io.pigeon.testing.Eventually;
import io.pigeon.waiting.QueueWaits;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.RestAssured;
import io.restassured.http.ContentType;
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

/** Waiting claims are bounded per project and per replica: one more is refused with 429 and an error document. */
@QuarkusTest
@TestProfile(LongPollBoundsTest.SmallBounds.class)
class LongPollBoundsTest {

    public static class SmallBounds implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of(
                    "pigeon.claim-wait.max-waiters", "3",
                    "pigeon.claim-wait.max-waiters-per-project", "2");
        }
    }

    @Inject
    QueueWaits waits;

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private CompletableFuture<HttpResponse<String>> claim(String project, int wait) {
        HttpRequest request = HttpRequest.newBuilder(
                        URI.create(RestAssured.baseURI + ":" + RestAssured.port + "/v2/queues/bounded/claims"))
                .timeout(Duration.ofSeconds(60))
                .header("X-Project-Id", project)
                .header("Client-ID", Api.CLIENT_ID)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"wait\": " + wait + "}"))
                .build();
        return http.sendAsync(request, HttpResponse.BodyHandlers.ofString());
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
}
