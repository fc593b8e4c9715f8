package io.pigeon.api.v2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.pigeon.message.MessageService;
import io.pigeon.testing.Api;
import io.pigeon.testing.Db;
import io.pigeon.testing.Eventually;
import io.pigeon.testing.HeldPosts;
import io.pigeon.testing.Messages;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.http.ContentType;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Sixteen real parallel clients, each posting to its own queue (eight in each of two projects, with the same eight
 * names), so that their posts share statements across queues and projects; some queues are created by those posts,
 * some bound the size of a post. Then what each client was answered is checked against what the database holds.
 */
@QuarkusTest
class CoalescedQueuesTest {

    private static final int CLIENTS = 16;
    private static final int QUEUES_PER_PROJECT = CLIENTS / 2;
    /** Clients whose queue exists before, with a post-size limit; the others' queues are created by their posts. */
    private static final int LIMITED = 3;

    private static final int ROUNDS = 30;
    private static final int MAX_POST_SIZE = 2000;
    private static final ObjectMapper JSON = new ObjectMapper();

    @Inject
    Pool pool;

    @Inject
    MeterRegistry registry;

    @Inject
    MessageService messages;

    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    private final String[] projects = {Api.newProject(), Api.newProject()};

    /** Every post answered 201: "client-post" to the row ids it was given, in the order of its messages. */
    private final Map<String, List<Long>> posted = new ConcurrentHashMap<>();

    private final List<String> failures = new CopyOnWriteArrayList<>();

    @Test
    void everyClientOnItsOwnQueueGetsItsOwnAnswerAndTheDatabaseHoldsWhatTheyWereTold() throws Exception {
        for (int c = 0; c < CLIENTS; c++) {
            if (c % QUEUES_PER_PROJECT < LIMITED) {
                Api.as(project(c))
                        .contentType(ContentType.JSON)
                        .body("{\"_max_messages_post_size\": " + MAX_POST_SIZE + "}")
                        .put("/v2/queues/" + queue(c))
                        .then()
                        .statusCode(201);
            }
        }
        double requestsBefore = summary().totalAmount();
        long statementsBefore = summary().count();

        // The first post is held at its insert by a lock on the table; the fifteen others, each to its own queue,
        // wait behind it and then share the next statement: deterministically, whatever the machine's speed.
        CountDownLatch firstInFlight = new CountDownLatch(1);
        ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
        List<Future<Void>> done = new ArrayList<>();
        try (HeldPosts held = HeldPosts.hold(pool)) {
            for (int c = 0; c < CLIENTS; c++) {
                int client = c;
                Callable<Void> work = () -> {
                    if (client > 0) {
                        firstInFlight.await();
                    }
                    hammer(client);
                    return null;
                };
                done.add(clients.submit(work));
            }
            held.awaitOneHeld();
            firstInFlight.countDown();
            Eventually.await(
                    "fifteen posts waiting", Duration.ofSeconds(20), () -> messages.postsWaiting() == CLIENTS - 1);
        } finally {
            firstInFlight.countDown();
        }
        try {
            for (Future<Void> each : done) {
                each.get(120, TimeUnit.SECONDS);
            }
        } finally {
            clients.shutdownNow();
        }
        assertEquals(
                List.of(),
                failures.subList(0, Math.min(20, failures.size())),
                failures.size() + " unexpected answers, the first 20");

        // The fifteen waiting posts were one statement (one transaction: one created_at), over fifteen queues of
        // both projects, and it stored them (not a failed statement whose posts then ran alone).
        List<Long> firstWave = new ArrayList<>();
        for (int c = 1; c < CLIENTS; c++) {
            firstWave.addAll(posted.get(c + "-0"));
        }
        Row wave = Db.run(
                        pool,
                        "SELECT count(DISTINCT m.created_at) AS instants, count(DISTINCT m.queue_id) AS queues, "
                                + "count(DISTINCT q.project) AS projects "
                                + "FROM messages m JOIN queues q ON q.id = m.queue_id WHERE m.id = ANY($1::bigint[])",
                        (Object) firstWave.toArray(Long[]::new))
                .iterator()
                .next();
        assertEquals(1, wave.getLong("instants"), "one statement stored the fifteen posts");
        assertEquals(CLIENTS - 1, wave.getLong("queues"));
        assertEquals(2, wave.getLong("projects"));
        double requests = summary().totalAmount() - requestsBefore;
        long statements = summary().count() - statementsBefore;
        assertTrue(requests > statements, "posts: " + requests + " requests in " + statements + " statements");

        // Each project has its eight queues, and holds exactly what its clients were answered, each message in its
        // own client's queue with the id its post was answered.
        Set<Long> stored = new HashSet<>();
        for (int p = 0; p < projects.length; p++) {
            assertEquals(
                    IntStream.range(0, QUEUES_PER_PROJECT)
                            .mapToObj(i -> "q" + i)
                            .toList(),
                    Db.run(pool, "SELECT name FROM queues WHERE project = $1 ORDER BY name", projects[p]).stream()
                            .map(row -> row.getString("name"))
                            .toList());
            for (Row row : Db.run(
                    pool,
                    "SELECT m.id, q.name, m.body FROM messages m JOIN queues q ON q.id = m.queue_id "
                            + "WHERE q.project = $1",
                    projects[p])) {
                long id = row.getLong("id");
                JsonNode body = JSON.readTree(row.getString("body"));
                int client = body.get("client").intValue();
                assertEquals(projects[p], project(client), "message " + id + " in its client's project");
                assertEquals(queue(client), row.getString("name"), "message " + id + " in its client's queue");
                String post = client + "-" + body.get("post").asText();
                List<Long> ids = posted.get(post);
                assertTrue(ids != null, "message " + id + " of post " + post + ", which was not acknowledged");
                assertEquals(ids.get(body.get("i").intValue()), id, "message " + body + " has its answered id");
                stored.add(id);
            }
        }
        Set<Long> acknowledged = new HashSet<>();
        posted.values().forEach(acknowledged::addAll);
        assertEquals(acknowledged, stored, "every acknowledged message is stored");
    }

    private String project(int client) {
        return projects[client / QUEUES_PER_PROJECT];
    }

    private static String queue(int client) {
        return "q" + client % QUEUES_PER_PROJECT;
    }

    private void hammer(int client) throws Exception {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        boolean limited = client % QUEUES_PER_PROJECT < LIMITED;
        for (int round = 0; round < ROUNDS; round++) {
            if (round > 0 && limited && random.nextInt(5) == 0) {
                postOverSized(client, round);
            } else {
                post(client, round, 1 + random.nextInt(10));
            }
        }
    }

    private void post(int client, int post, int count) throws Exception {
        String document = IntStream.range(0, count)
                .mapToObj(i -> "{\"ttl\": 3600, \"body\": {\"client\": " + client + ", \"post\": " + post + ", \"i\": "
                        + i + "}}")
                .collect(Collectors.joining(",", "{\"messages\": [", "]}"));
        HttpResponse<String> response = send(client, document);
        if (response.statusCode() != 201) {
            failures.add("post: " + response.statusCode() + " " + response.body());
            return;
        }
        List<Long> ids = new ArrayList<>();
        JSON.readTree(response.body()).get("resources").forEach(href -> {
            ids.add(Messages.rowId(href.asText()));
            if (!href.asText().startsWith("/v2/queues/" + queue(client) + "/messages/")) {
                failures.add("client " + client + " answered " + href.asText());
            }
        });
        if (ids.size() != count) {
            failures.add("post of " + count + " answered " + ids);
        }
        posted.put(client + "-" + post, ids);
    }

    private void postOverSized(int client, int post) throws Exception {
        String document = "{\"messages\": [{\"ttl\": 3600, \"body\": {\"client\": " + client + ", \"post\": " + post
                + ", \"i\": 0, \"pad\": \"" + "x".repeat(MAX_POST_SIZE) + "\"}}]}";
        HttpResponse<String> response = send(client, document);
        if (response.statusCode() != 400 || !response.body().contains(String.valueOf(MAX_POST_SIZE))) {
            failures.add("over-sized post: " + response.statusCode() + " " + response.body());
        }
    }

    private HttpResponse<String> send(int client, String document) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(
                        RestAssured.baseURI + ":" + RestAssured.port + "/v2/queues/" + queue(client) + "/messages"))
                .header("X-Project-Id", project(client))
                .header("Client-ID", Api.CLIENT_ID)
                .header("Content-Type", "application/json")
                .timeout(Duration.ofSeconds(60))
                .POST(HttpRequest.BodyPublishers.ofString(document))
                .build();
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }

    private DistributionSummary summary() {
        return registry.get("pigeon.statement.requests").tag("kind", "post").summary();
    }
}
