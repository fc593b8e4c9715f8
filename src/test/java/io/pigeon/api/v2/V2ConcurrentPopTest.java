package io.pigeon.api.v2;

import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pigeon.testing.Api;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.http.ContentType;
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
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** Eight real parallel poppers: every message is popped exactly once. */
@QuarkusTest
class V2ConcurrentPopTest {

    private static final int MESSAGES = 1000;
    private static final int POPPERS = 8;
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void eightParallelPoppersTakeEachMessageOnce() throws Exception {
        String project = Api.newProject();
        for (int batch = 0; batch < MESSAGES / 20; batch++) {
            int first = batch * 20;
            String document = IntStream.range(first, first + 20)
                    .mapToObj(i -> "{\"ttl\": 3600, \"body\": " + i + "}")
                    .collect(Collectors.joining(",", "{\"messages\": [", "]}"));
            Api.as(project)
                    .contentType(ContentType.JSON)
                    .body(document)
                    .post("/v2/queues/popped/messages")
                    .then()
                    .statusCode(201);
        }
        HttpClient http =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        URI pop = URI.create(RestAssured.baseURI + ":" + RestAssured.port + "/v2/queues/popped/messages?pop=7");
        ExecutorService pool = Executors.newFixedThreadPool(POPPERS);
        try {
            List<Callable<List<Integer>>> poppers = new ArrayList<>();
            for (int p = 0; p < POPPERS; p++) {
                poppers.add(() -> popUntilEmpty(http, pop, project));
            }
            List<Integer> popped = new ArrayList<>();
            for (Future<List<Integer>> result : pool.invokeAll(poppers)) {
                popped.addAll(result.get());
            }
            Set<Integer> distinct = new HashSet<>(popped);
            assertEquals(popped.size(), distinct.size(), "a message was popped twice");
            assertEquals(
                    IntStream.range(0, MESSAGES).boxed().collect(Collectors.toSet()),
                    distinct,
                    "every message is popped");
        } finally {
            pool.shutdownNow();
        }
        Api.as(project).get("/v2/queues/popped/stats").then().body("messages.total", equalTo(0));
    }

    private static List<Integer> popUntilEmpty(HttpClient http, URI pop, String project) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(pop)
                .header("X-Project-Id", project)
                .header("Client-ID", Api.CLIENT_ID)
                .timeout(Duration.ofSeconds(30))
                .DELETE()
                .build();
        List<Integer> mine = new ArrayList<>();
        while (true) {
            HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
            assertEquals(200, response.statusCode(), response.body());
            JsonNode messages = JSON.readTree(response.body()).get("messages");
            if (messages.isEmpty()) {
                return mine;
            }
            messages.forEach(message -> mine.add(message.get("body").intValue()));
        }
    }
}
