package io.pigeon.claim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pigeon.testing.Api;
import io.pigeon.testing.Slow;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.http.ContentType;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A "fair" queue (issue 43, decision 0020) with 8 parallel consumers: one group with a backlog of 10,000 messages does
 * not delay 99 groups of 10. Both runs are measured in this test, one after the other on the same machine: the time
 * the 99 small groups take on a fair queue holding only them, and on a fair queue holding the big group too (posted
 * first, so on a queue of none every small message would wait behind it). Each small group must finish within the
 * first time plus a margin: 2 s, plus half the first time, because the mixed queue's claims carry one big-group message
 * in ten as well (the big group has its turn too) on a loaded 2-core machine. Without fairness the small groups would
 * finish only after the 10,000, some ten times later.
 */
@QuarkusTest
@Slow
class FairQueueTest {

    private static final int SMALL_GROUPS = 99;
    private static final int SMALL_SIZE = 10;
    private static final int BIG_SIZE = 10_000;
    private static final int CONSUMERS = 8;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final String project = Api.newProject();
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    @Test
    void aBigGroupDoesNotDelayTheSmallOnes() throws Exception {
        fairQueue("small-only");
        fairQueue("mixed");
        List<String> big = new ArrayList<>();
        for (int i = 0; i < BIG_SIZE; i++) {
            big.add("{\"ttl\": 3600, \"group\": \"big\", \"body\": {\"g\": \"big\"}}");
        }
        post("mixed", big);
        List<String> small = new ArrayList<>();
        for (int s = 0; s < SMALL_SIZE; s++) {
            for (int g = 0; g < SMALL_GROUPS; g++) {
                small.add("{\"ttl\": 3600, \"group\": \"s" + g + "\", \"body\": {\"g\": \"s" + g + "\"}}");
            }
        }
        post("small-only", small);
        post("mixed", small);

        long alone = smallGroupsDone("small-only");
        long mixed = smallGroupsDone("mixed");
        long bound = alone + 2_000 + alone / 2;
        System.out.printf(
                "fair: 99 small groups of 10 done in %d ms alone, %d ms beside a group of 10,000 (bound %d ms)%n",
                alone, mixed, bound);
        assertTrue(mixed <= bound, "small groups beside the big one took " + mixed + " ms, alone " + alone + " ms");
    }

    private void fairQueue(String name) {
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"_ordering\": \"fair\"}")
                .put("/v2/queues/" + name)
                .then()
                .statusCode(201);
    }

    private void post(String queue, List<String> messages) {
        for (int first = 0; first < messages.size(); first += 10) {
            String document = "{\"messages\": ["
                    + String.join(", ", messages.subList(first, Math.min(first + 10, messages.size()))) + "]}";
            Api.as(project)
                    .contentType(ContentType.JSON)
                    .body(document)
                    .post("/v2/queues/" + queue + "/messages")
                    .then()
                    .statusCode(201);
        }
    }

    /**
     * Runs 8 consumers on the queue until every small group is deleted; the milliseconds from their start to the last
     * small group's last delete.
     */
    private long smallGroupsDone(String queue) throws Exception {
        Map<String, AtomicInteger> left = new ConcurrentHashMap<>();
        for (int g = 0; g < SMALL_GROUPS; g++) {
            left.put("s" + g, new AtomicInteger(SMALL_SIZE));
        }
        AtomicInteger groupsLeft = new AtomicInteger(SMALL_GROUPS);
        long start = System.nanoTime();
        ExecutorService pool = Executors.newFixedThreadPool(CONSUMERS);
        try {
            List<Future<?>> consumers = new ArrayList<>();
            for (int c = 0; c < CONSUMERS; c++) {
                consumers.add(pool.submit(() -> {
                    consume(queue, left, groupsLeft);
                    return null;
                }));
            }
            for (Future<?> consumer : consumers) {
                consumer.get();
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(0, groupsLeft.get());
        return (System.nanoTime() - start) / 1_000_000;
    }

    private void consume(String queue, Map<String, AtomicInteger> left, AtomicInteger groupsLeft) throws Exception {
        String base = RestAssured.baseURI + ":" + RestAssured.port;
        long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
        while (groupsLeft.get() > 0) {
            assertTrue(System.nanoTime() < deadline, "the small groups were served within 5 minutes");
            HttpResponse<String> claim =
                    send("POST", base + "/v2/queues/" + queue + "/claims?limit=10", "{\"ttl\": 300, \"grace\": 60}");
            if (claim.statusCode() == 204) {
                Thread.sleep(10);
                continue;
            }
            assertEquals(201, claim.statusCode(), claim.body());
            for (JsonNode message : JSON.readTree(claim.body()).path("messages")) {
                HttpResponse<String> gone =
                        send("DELETE", base + message.path("href").asText(), null);
                assertEquals(204, gone.statusCode(), gone.body());
                AtomicInteger group = left.get(message.path("body").path("g").asText());
                if (group != null && group.decrementAndGet() == 0) {
                    groupsLeft.decrementAndGet();
                }
            }
        }
    }

    private HttpResponse<String> send(String method, String url, String body) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(url))
                .timeout(Duration.ofSeconds(60))
                .header("Client-ID", Api.CLIENT_ID)
                .header("X-Project-Id", project)
                .header("Content-Type", "application/json")
                .method(
                        method,
                        body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .build();
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }
}
