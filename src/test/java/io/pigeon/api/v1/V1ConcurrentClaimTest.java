package io.pigeon.api.v1;

import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pigeon.testing.Api;
import io.pigeon.testing.Messages;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** Real parallel clients: every message is claimed exactly once, none twice, none missed. */
@QuarkusTest
class V1ConcurrentClaimTest {

    private static final int MESSAGES = 2000;
    private static final int CLAIMERS = 16;
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void sixteenParallelClaimersTakeEachOfTwoThousandMessagesExactlyOnce() throws Exception {
        String project = Api.newProject();
        String queue = "contended";
        Api.as(project).put("/v1/queues/" + queue).then().statusCode(201);
        Set<String> posted = new HashSet<>();
        for (int i = 0; i < MESSAGES / 20; i++) {
            Messages.post(project, queue, 20, 3600).forEach(href -> posted.add(Messages.id(href)));
        }
        assertEquals(MESSAGES, posted.size());

        HttpClient http =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        URI claimUri =
                URI.create(RestAssured.baseURI + ":" + RestAssured.port + "/v1/queues/" + queue + "/claims?limit=10");
        ExecutorService pool = Executors.newFixedThreadPool(CLAIMERS);
        try {
            List<Callable<List<String>>> claimers = new ArrayList<>();
            for (int c = 0; c < CLAIMERS; c++) {
                claimers.add(() -> claimUntilNothingIsFree(http, claimUri, project));
            }
            List<String> claimed = new ArrayList<>();
            for (Future<List<String>> result : pool.invokeAll(claimers)) {
                claimed.addAll(result.get());
            }
            Set<String> distinct = new HashSet<>(claimed);
            assertEquals(claimed.size(), distinct.size(), "a message was claimed twice");
            assertEquals(posted, distinct, "every message is claimed");
        } finally {
            pool.shutdownNow();
        }
        Api.as(project)
                .get("/v1/queues/" + queue + "/stats")
                .then()
                .statusCode(200)
                .body("messages.claimed", equalTo(MESSAGES))
                .body("messages.free", equalTo(0));
    }

    private static List<String> claimUntilNothingIsFree(HttpClient http, URI claimUri, String project)
            throws Exception {
        List<String> mine = new ArrayList<>();
        HttpRequest request = HttpRequest.newBuilder(claimUri)
                .header("X-Project-Id", project)
                .header("Client-ID", Api.CLIENT_ID)
                .header("Content-Type", "application/json")
                .timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString("{\"ttl\": 300, \"grace\": 60}"))
                .build();
        while (true) {
            HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() == 204) {
                return mine;
            }
            assertEquals(201, response.statusCode(), response.body());
            JsonNode claimed = JSON.readTree(response.body());
            assertTrue(claimed.size() >= 1 && claimed.size() <= 10);
            for (JsonNode message : claimed) {
                mine.add(Messages.id(message.get("href").asText()));
            }
        }
    }
}
