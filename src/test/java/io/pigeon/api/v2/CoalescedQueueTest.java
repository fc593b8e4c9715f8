package io.pigeon.api.v2;

import static io.pigeon.testing.StatementRequests.carried;
import static io.pigeon.testing.StatementRequests.statements;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.core.instrument.MeterRegistry;
import io.pigeon.testing.Api;
import io.pigeon.testing.Db;
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
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.IntFunction;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Sixteen real parallel clients hammer one queue, or a queue each, with posts (some over the queue's size limit),
 * claims, and then deletes by ids, deletes one by one with the claim, or releases, so that their requests share
 * statements (on one queue, or across the queues of the database); then what each client was answered is checked
 * against what the database holds.
 */
@QuarkusTest
class CoalescedQueueTest {

    private static final int CLIENTS = 16;
    private static final int ROUNDS = 40;
    private static final int MAX_POST_SIZE = 2000;
    private static final ObjectMapper JSON = new ObjectMapper();

    @Inject
    Pool pool;

    @Inject
    MeterRegistry registry;

    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    /** Each client's project and queue. */
    private IntFunction<String> projectOf;

    private IntFunction<String> queueOf;

    /** Every post answered 201: "client-post" to the row ids it was given, in the order of its messages. */
    private final Map<String, List<Long>> posted = new ConcurrentHashMap<>();
    /** Row id to the claim that holds it, while a client holds it (until its delete or release is sent). */
    private final Map<Long, String> held = new ConcurrentHashMap<>();
    /** Every message a claim answered: row id, body, claim. */
    private final List<Claimed> claimed = new CopyOnWriteArrayList<>();
    /** Claims that ended with their messages deleted (so their rows are still live): claim to its row ids. */
    private final Map<String, List<Long>> claimsDeleted = new ConcurrentHashMap<>();

    private final Set<Long> deleted = ConcurrentHashMap.newKeySet();
    private final List<String> failures = new CopyOnWriteArrayList<>();

    private record Claimed(long id, JsonNode body, String claim, int claimer) {}

    @Test
    void onOneQueueEveryClientGetsExactlyItsOwnAnswerAndTheDatabaseHoldsWhatTheyWereTold() throws Exception {
        String project = Api.newProject();
        hammerAndCheck(client -> project, client -> "hammered");
    }

    /**
     * A queue per client, in two projects that use the same queue names: statements are shared across queues and
     * projects, and yet each claim holds only messages its own client posted to its own queue.
     */
    @Test
    void withAQueueEachInTwoProjectsEveryClientGetsOnlyItsOwnQueuesMessages() throws Exception {
        String even = Api.newProject();
        String odd = Api.newProject();
        hammerAndCheck(client -> client % 2 == 0 ? even : odd, client -> "hammered-" + client / 2);
        for (Claimed message : claimed) {
            assertEquals(
                    message.claimer(),
                    message.body().get("client").intValue(),
                    "message " + message.id() + " was claimed by a client of another queue");
        }
    }

    private void hammerAndCheck(IntFunction<String> projects, IntFunction<String> queues) throws Exception {
        projectOf = projects;
        queueOf = queues;
        Set<String> created = new HashSet<>();
        for (int client = 0; client < CLIENTS; client++) {
            if (created.add(projectOf.apply(client) + "/" + queueOf.apply(client))) {
                Api.as(projectOf.apply(client))
                        .contentType(ContentType.JSON)
                        .body("{\"_max_messages_post_size\": " + MAX_POST_SIZE + "}")
                        .put("/v2/queues/" + queueOf.apply(client))
                        .then()
                        .statusCode(201);
            }
        }
        double[] before = {carried(registry, "post"), carried(registry, "claim"), carried(registry, "delete")};
        long[] statementsBefore = {
            statements(registry, "post"), statements(registry, "claim"), statements(registry, "delete")
        };

        ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
        try {
            List<Callable<Void>> work = new ArrayList<>();
            for (int c = 0; c < CLIENTS; c++) {
                int client = c;
                work.add(() -> {
                    hammer(client);
                    return null;
                });
            }
            for (Future<Void> done : clients.invokeAll(work)) {
                done.get();
            }
        } finally {
            clients.shutdownNow();
        }
        assertEquals(
                List.of(),
                failures.subList(0, Math.min(20, failures.size())),
                failures.size() + " unexpected answers, the first 20");

        // Requests did share statements (else this test would only be testing requests one by one).
        String[] kinds = {"post", "claim", "delete"};
        for (int k = 0; k < kinds.length; k++) {
            double requests = carried(registry, kinds[k]) - before[k];
            long statements = statements(registry, kinds[k]) - statementsBefore[k];
            assertTrue(
                    requests > statements, kinds[k] + ": " + requests + " requests in " + statements + " statements");
        }

        Map<Long, String> stored = new HashMap<>();
        for (String place : created) {
            String[] projectAndQueue = place.split("/");
            for (Row row : Db.run(
                    pool,
                    "SELECT m.id, m.body FROM messages m JOIN queues q ON q.id = m.queue_id "
                            + "WHERE q.project = $1 AND q.name = $2",
                    projectAndQueue[0],
                    projectAndQueue[1])) {
                stored.put(row.getLong("id"), row.getString("body"));
            }
        }
        Set<Long> acknowledged = new HashSet<>();
        posted.values().forEach(acknowledged::addAll);

        // Every acknowledged post is there, but for what clients deleted; nothing else is.
        assertTrue(acknowledged.containsAll(deleted), "deleted messages that no post was answered with");
        Set<Long> expected = new HashSet<>(acknowledged);
        expected.removeAll(deleted);
        assertEquals(expected, stored.keySet(), "stored = acknowledged - deleted");
        // Each post was answered with the ids of its own messages, in its order.
        for (Map.Entry<Long, String> row : stored.entrySet()) {
            assertPostedAs(row.getKey(), JSON.readTree(row.getValue()));
        }
        // Each claim answered the bodies of the rows it names, and no over-sized post stored anything.
        for (Claimed message : claimed) {
            assertPostedAs(message.id(), message.body());
        }
        // Each claim whose messages were deleted is recorded with exactly the rows it answered.
        for (Map.Entry<String, List<Long>> claim : claimsDeleted.entrySet()) {
            Row row = Db.run(pool, "SELECT message_ids FROM claims WHERE id = $1::uuid", claim.getKey())
                    .iterator()
                    .next();
            assertEquals(
                    claim.getValue().stream().sorted().toList(),
                    List.of(row.getArrayOfLongs("message_ids")),
                    "claim " + claim.getKey());
        }
        assertTrue(deleted.size() > CLIENTS * ROUNDS / 4, "the clients deleted " + deleted.size() + " messages");
    }

    private void assertPostedAs(long id, JsonNode body) {
        String post = body.get("client").asText() + "-" + body.get("post").asText();
        List<Long> ids = posted.get(post);
        assertTrue(ids != null, "message " + id + " of post " + post + ", which was not acknowledged: " + body);
        assertEquals(ids.get(body.get("i").intValue()), id, "message " + body + " has the id its post was answered");
    }

    private void hammer(int client) throws Exception {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        for (int round = 0; round < ROUNDS; round++) {
            int roll = random.nextInt(10);
            if (roll == 0) {
                postOverSized(client, round);
            } else if (roll < 5) {
                post(client, round, 1 + random.nextInt(10));
            } else {
                claimAndEnd(client, random);
            }
        }
    }

    private void post(int client, int post, int count) throws Exception {
        String document = IntStream.range(0, count)
                .mapToObj(i -> "{\"ttl\": 3600, \"body\": {\"client\": " + client + ", \"post\": " + post + ", \"i\": "
                        + i + "}}")
                .collect(Collectors.joining(",", "{\"messages\": [", "]}"));
        HttpResponse<String> response = send(client, "POST", "/messages", document);
        if (response.statusCode() != 201) {
            failures.add("post: " + response.statusCode() + " " + response.body());
            return;
        }
        List<Long> ids = new ArrayList<>();
        JSON.readTree(response.body()).get("resources").forEach(href -> ids.add(Messages.rowId(href.asText())));
        if (ids.size() != count) {
            failures.add("post of " + count + " answered " + ids);
        }
        posted.put(client + "-" + post, ids);
    }

    private void postOverSized(int client, int post) throws Exception {
        String document = "{\"messages\": [{\"ttl\": 3600, \"body\": {\"client\": " + client + ", \"post\": " + post
                + ", \"i\": 0, \"pad\": \"" + "x".repeat(MAX_POST_SIZE) + "\"}}]}";
        HttpResponse<String> response = send(client, "POST", "/messages", document);
        if (response.statusCode() != 400 || !response.body().contains(String.valueOf(MAX_POST_SIZE))) {
            failures.add("over-sized post: " + response.statusCode() + " " + response.body());
        }
    }

    private void claimAndEnd(int client, ThreadLocalRandom random) throws Exception {
        HttpResponse<String> response =
                send(client, "POST", "/claims?limit=" + (1 + random.nextInt(10)), "{\"ttl\": 3600, \"grace\": 60}");
        if (response.statusCode() == 204) {
            return;
        }
        if (response.statusCode() != 201) {
            failures.add("claim: " + response.statusCode() + " " + response.body());
            return;
        }
        List<Long> ids = new ArrayList<>();
        List<String> wireIds = new ArrayList<>();
        String claim = null;
        for (JsonNode message : JSON.readTree(response.body()).get("messages")) {
            String href = message.get("href").asText();
            long id = Messages.rowId(href);
            claim = Messages.claimId(href);
            ids.add(id);
            wireIds.add(Messages.id(href));
            claimed.add(new Claimed(id, message.get("body"), claim, client));
            String holder = held.putIfAbsent(id, claim);
            if (holder != null) {
                failures.add("message " + id + " claimed by " + claim + " while held by live claim " + holder);
            }
        }
        int ending = random.nextInt(10);
        if (ending < 6) {
            expect204("delete by ids", send(client, "DELETE", "/messages?ids=" + String.join(",", wireIds), null));
            finishDeleting(claim, ids);
        } else if (ending < 8) {
            for (String wireId : wireIds) {
                expect204(
                        "delete with claim",
                        send(client, "DELETE", "/messages/" + wireId + "?claim_id=" + claim, null));
            }
            finishDeleting(claim, ids);
        } else {
            // Forgotten before the release is sent: once it is answered another claim may take them.
            ids.forEach(held::remove);
            expect204("release", send(client, "DELETE", "/claims/" + claim, null));
        }
    }

    private void finishDeleting(String claim, List<Long> ids) {
        for (Long id : ids) {
            if (!deleted.add(id)) {
                failures.add("message " + id + " deleted twice");
            }
            held.remove(id);
        }
        claimsDeleted.put(claim, ids);
    }

    private void expect204(String what, HttpResponse<String> response) {
        if (response.statusCode() != 204) {
            failures.add(what + ": " + response.statusCode() + " " + response.body());
        }
    }

    private HttpResponse<String> send(int client, String method, String path, String body) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(
                        RestAssured.baseURI + ":" + RestAssured.port + "/v2/queues/" + queueOf.apply(client) + path))
                .header("X-Project-Id", projectOf.apply(client))
                .header("Client-ID", Api.CLIENT_ID)
                .timeout(Duration.ofSeconds(30));
        if (body != null) {
            request.header("Content-Type", "application/json")
                    .method(method, HttpRequest.BodyPublishers.ofString(body));
        } else {
            request.method(method, HttpRequest.BodyPublishers.noBody());
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }
}
