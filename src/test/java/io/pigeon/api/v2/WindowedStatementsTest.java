package io.pigeon.api.v2;

import static io.pigeon.testing.StatementRequests.carried;
import static io.pigeon.testing.StatementRequests.statements;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.core.instrument.MeterRegistry;
import io.pigeon.testing.Api;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.RestAssured;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A few real parallel clients, each on its own queue, with a batching window ({@code pigeon.coalescing.window}, set by
 * {@link ZaqarOptInsProfile}): without it, four clients seldom meet in a statement (about 1.05 requests a statement);
 * with it, a client answered together with others asks again with them, and their posts and claims share statements.
 * Each client still gets exactly its own messages.
 */
@QuarkusTest
@TestProfile(ZaqarOptInsProfile.class)
class WindowedStatementsTest {

    private static final int CLIENTS = 4;
    private static final int CYCLES_PER_ROUND = 10;
    private static final int MESSAGES = 3;
    /**
     * Above what four clients reach without a window (about 1.05 with an idle machine's own clients; up to about 2
     * when this test's clients share a loaded machine with the server), below the four they reach with one.
     */
    private static final double SHARED = 3;

    private static final ObjectMapper JSON = new ObjectMapper();

    @Inject
    MeterRegistry registry;

    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();

    private final List<String> failures = new CopyOnWriteArrayList<>();

    @Test
    void fourClientsOnTheirOwnQueuesSharePostAndClaimStatements() throws Exception {
        String project = Api.newProject();
        for (int client = 0; client < CLIENTS; client++) {
            Api.as(project).put("/v2/queues/windowed-" + client).then().statusCode(201);
        }
        ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
        try {
            // Rounds until one has its posts and claims shared (the first may start apart, or meet a slow moment of
            // the machine); each round's answers are checked whatever it shows.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
            double posts;
            double claims;
            do {
                double[] before = {carried(registry, "post"), carried(registry, "claim")};
                long[] statementsBefore = {statements(registry, "post"), statements(registry, "claim")};
                round(clients, project);
                posts = (carried(registry, "post") - before[0])
                        / Math.max(1, statements(registry, "post") - statementsBefore[0]);
                claims = (carried(registry, "claim") - before[1])
                        / Math.max(1, statements(registry, "claim") - statementsBefore[1]);
                assertEquals(List.of(), failures);
            } while ((posts < SHARED || claims < SHARED) && System.nanoTime() < deadline);
            assertTrue(posts >= SHARED, "requests per post statement: " + posts);
            assertTrue(claims >= SHARED, "requests per claim statement: " + claims);
        } finally {
            clients.shutdownNow();
        }
    }

    /** Each client posts, then claims what it posted, {@link #CYCLES_PER_ROUND} times, all at once. */
    private void round(ExecutorService clients, String project) throws Exception {
        List<Callable<Void>> work = new ArrayList<>();
        for (int c = 0; c < CLIENTS; c++) {
            int client = c;
            work.add(() -> {
                for (int cycle = 0; cycle < CYCLES_PER_ROUND; cycle++) {
                    cycle(project, client);
                }
                return null;
            });
        }
        for (Future<Void> done : clients.invokeAll(work, 120, TimeUnit.SECONDS)) {
            done.get();
        }
    }

    /** One post of {@link #MESSAGES} messages, then one claim that must hold exactly them (the queue is the client's). */
    private void cycle(String project, int client) throws Exception {
        StringBuilder messages = new StringBuilder();
        for (int i = 0; i < MESSAGES; i++) {
            messages.append(i == 0 ? "" : ",")
                    .append("{\"ttl\": 300, \"body\": {\"client\": ")
                    .append(client)
                    .append("}}");
        }
        HttpResponse<String> post = send(project, client, "/messages", "{\"messages\": [" + messages + "]}");
        if (post.statusCode() != 201) {
            failures.add("post: " + post.statusCode() + " " + post.body());
            return;
        }
        HttpResponse<String> claim = send(project, client, "/claims?limit=" + MESSAGES, "{\"ttl\": 60, \"grace\": 60}");
        if (claim.statusCode() != 201) {
            failures.add("claim: " + claim.statusCode() + " " + claim.body());
            return;
        }
        JsonNode claimed = JSON.readTree(claim.body()).get("messages");
        if (claimed.size() != MESSAGES) {
            failures.add("client " + client + " claimed " + claimed.size() + " messages: " + claim.body());
        }
        for (JsonNode message : claimed) {
            if (message.get("body").get("client").intValue() != client) {
                failures.add("client " + client + " claimed another client's message: " + message);
            }
        }
    }

    private HttpResponse<String> send(String project, int client, String path, String body) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(
                        RestAssured.baseURI + ":" + RestAssured.port + "/v2/queues/windowed-" + client + path))
                .header("X-Project-Id", project)
                .header("Client-ID", Api.CLIENT_ID)
                .header("Content-Type", "application/json")
                .timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build();
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }
}
