package io.pigeon.claim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.pigeon.message.Message;
import io.pigeon.queue.PlacedQueue;
import io.pigeon.queue.QueueName;
import io.pigeon.testing.Api;
import io.pigeon.testing.Db;
import io.pigeon.testing.Eventually;
import io.pigeon.testing.Messages;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.http.ContentType;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.mutiny.sqlclient.Transaction;
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
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Claims on different queues of one database share one statement (the coalescer's key is the database): each claim
 * takes only its own queue's oldest free messages, in the claims' order within that queue, under that queue's own
 * rules (delays, dead-letter claim limit); a queue is always its project's (two projects' queues of one name never
 * mix); a missing queue answers its claim alone.
 */
@QuarkusTest
class ClaimsAcrossQueuesTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final ClaimTerms TERMS = new ClaimTerms(3600, 60);

    @Inject
    ClaimStore store;

    @Inject
    ClaimService service;

    @Inject
    Pool pool;

    @Inject
    MeterRegistry registry;

    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();

    @Test
    void oneStatementGivesEachClaimItsOwnQueuesOldestAndTwoProjectsQueuesOfOneNameNeverMix() {
        String first = Api.newProject();
        String second = Api.newProject();
        post(first, "same", 6, 0);
        post(second, "same", 6, 0);
        post(first, "other", 4, 0);
        List<ClaimStore.Request> requests = List.of(
                request(first, "same", 2),
                request(second, "same", 3),
                request(first, "missing", 5),
                request(first, "other", 10),
                request(first, "same", 2),
                request(second, "same", 1),
                request(second, "other", 5));

        List<Optional<List<Message>>> answers = create(requests);

        assertEquals(Optional.of(bodies(first, "same", 0, 1)), answers.get(0).map(ClaimsAcrossQueuesTest::bodies));
        assertEquals(
                Optional.of(bodies(second, "same", 0, 1, 2)), answers.get(1).map(ClaimsAcrossQueuesTest::bodies));
        assertEquals(Optional.empty(), answers.get(2), "no queue, no claim; the others are unaffected");
        assertEquals(
                Optional.of(bodies(first, "other", 0, 1, 2, 3)),
                answers.get(3).map(ClaimsAcrossQueuesTest::bodies),
                "a claim asking for more gets what its queue has");
        assertEquals(Optional.of(bodies(first, "same", 2, 3)), answers.get(4).map(ClaimsAcrossQueuesTest::bodies));
        assertEquals(Optional.of(bodies(second, "same", 3)), answers.get(5).map(ClaimsAcrossQueuesTest::bodies));
        assertEquals(Optional.empty(), answers.get(6), "the other project's queue of that name is not this project's");

        // Each claim is recorded on its own queue with exactly the rows it answered, and reads back as its project's.
        for (int i : new int[] {0, 1, 3, 4, 5}) {
            ClaimStore.Request request = requests.get(i);
            Row claim = Db.run(
                            pool,
                            """
                            SELECT q.project, q.name, c.message_ids, c.ttl, c.grace FROM claims c
                            JOIN queues q ON q.id = c.queue_id WHERE c.id = $1""",
                            request.id())
                    .iterator()
                    .next();
            assertEquals(request.queue().project(), claim.getString("project"));
            assertEquals(request.queue().storedName(), claim.getString("name"));
            assertEquals(
                    answers.get(i).orElseThrow().stream().map(Message::id).toList(),
                    List.of(claim.getArrayOfLongs("message_ids")));
            assertEquals(3600, claim.getInteger("ttl"));
            assertEquals(60, claim.getInteger("grace"));
            Api.as(request.queue().project())
                    .get("/v2/queues/" + request.queue().storedName() + "/claims/" + request.id())
                    .then()
                    .statusCode(200);
        }
        Api.as(first)
                .get("/v2/queues/same/claims/" + requests.get(1).id())
                .then()
                .statusCode(404);
        assertEquals(
                0,
                Db.count(pool, "SELECT count(*) FROM claims WHERE id = ANY($1::uuid[])", (Object)
                        new UUID[] {requests.get(2).id(), requests.get(6).id()}),
                "a claim of nothing is not kept");
        assertEquals(List.of(4L, 2L), List.of(claimed(first, "same"), free(first, "same")), "nothing else claimed");
        assertEquals(List.of(4L, 2L), List.of(claimed(second, "same"), free(second, "same")));
        assertEquals(List.of(4L, 0L), List.of(claimed(first, "other"), free(first, "other")));
    }

    @Test
    void aSharedStatementKeepsEachQueuesDelaysAndDeadLetterClaimLimit() {
        String project = Api.newProject();
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"_max_claim_count\": 1, \"_dead_letter_queue\": \"dead\"}")
                .put("/v2/queues/limited")
                .then()
                .statusCode(201);
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"_max_claim_count\": 1}")
                .put("/v2/queues/no-dead-letter")
                .then()
                .statusCode(201);
        post(project, "limited", 2, 0);
        post(project, "no-dead-letter", 2, 0);
        post(project, "unlimited", 2, 0);
        post(project, "delayed", 2, 600);
        post(project, "delayed", 1, 0);

        List<ClaimStore.Request> firstClaims = List.of(
                request(project, "limited", 5),
                request(project, "no-dead-letter", 5),
                request(project, "unlimited", 5),
                request(project, "delayed", 5));
        List<Optional<List<Message>>> first = create(firstClaims);
        assertEquals(Optional.of(bodies(project, "limited", 0, 1)), first.get(0).map(ClaimsAcrossQueuesTest::bodies));
        assertEquals(
                Optional.of(bodies(project, "no-dead-letter", 0, 1)),
                first.get(1).map(ClaimsAcrossQueuesTest::bodies));
        assertEquals(
                Optional.of(bodies(project, "unlimited", 0, 1)), first.get(2).map(ClaimsAcrossQueuesTest::bodies));
        // Only the one posted without a delay (its n is 0: the delayed ones were posted before it, with n 0 and 1).
        assertEquals(1, first.get(3).orElseThrow().size(), "delayed messages are not claimed");
        assertEquals(
                List.of("{\"project\":\"" + project + "\",\"queue\":\"delayed\",\"n\":0,\"delay\":0}"),
                first.get(3).orElseThrow().stream().map(Message::body).toList());

        // Their claims end: only the queues without a dead-letter limit give their messages again.
        for (int i = 0; i < 3; i++) {
            ClaimStore.Request request = firstClaims.get(i);
            Api.as(project)
                    .delete("/v2/queues/" + request.queue().storedName() + "/claims/" + request.id())
                    .then()
                    .statusCode(204);
        }
        List<Optional<List<Message>>> again = create(List.of(
                request(project, "limited", 5),
                request(project, "no-dead-letter", 5),
                request(project, "unlimited", 5),
                request(project, "delayed", 5)));
        assertEquals(Optional.of(List.of()), again.get(0), "claimed as often as the dead-letter rule allows");
        assertEquals(
                Optional.of(bodies(project, "no-dead-letter", 0, 1)),
                again.get(1).map(ClaimsAcrossQueuesTest::bodies),
                "a claim limit without a dead-letter queue does not apply");
        assertEquals(
                Optional.of(bodies(project, "unlimited", 0, 1)), again.get(2).map(ClaimsAcrossQueuesTest::bodies));
        assertEquals(Optional.of(List.of()), again.get(3), "still delayed");
        assertEquals(
                2,
                Db.count(
                        pool,
                        """
                        SELECT min(m.claim_count) FROM messages m JOIN queues q ON q.id = m.queue_id
                        WHERE q.project = $1 AND q.name = 'unlimited'""",
                        project),
                "each claim counted");
    }

    @Test
    void claimsOfTwoProjectsWaitingTogetherShareOneStatementAndAMissingQueueAmongThemAnswersAlone() throws Exception {
        String first = Api.newProject();
        String second = Api.newProject();
        post(first, "held", 1, 0);
        post(first, "same", 3, 0);
        post(second, "same", 3, 0);
        long statementsBefore = statements();

        // The first claim is held at its insert of the claim by a lock on the table; the others, on other queues of
        // the same database, wait behind it and then share the next statement.
        SqlConnection holder = pool.getConnection().await().indefinitely();
        Transaction held = holder.begin().await().indefinitely();
        ExecutorService clients = Executors.newFixedThreadPool(4);
        List<Future<HttpResponse<String>>> answers = new ArrayList<>();
        try {
            holder.query("LOCK TABLE claims IN SHARE MODE").execute().await().indefinitely();
            answers.add(clients.submit(() -> claim(first, "held", 5)));
            Eventually.await(
                    "a claim held by the lock",
                    Duration.ofSeconds(10),
                    () -> Db.count(
                                    pool,
                                    """
                                    SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()
                                    AND wait_event_type = 'Lock' AND query LIKE 'WITH q AS (SELECT id, CASE%'""")
                            > 0);
            answers.add(clients.submit(() -> claim(first, "same", 2)));
            answers.add(clients.submit(() -> claim(second, "same", 2)));
            answers.add(clients.submit(() -> claim(first, "missing", 2)));
            Eventually.await("three claims waiting", Duration.ofSeconds(10), () -> service.claimsWaiting() == 3);
        } finally {
            held.rollback().await().indefinitely();
            holder.close().await().indefinitely();
        }
        List<HttpResponse<String>> responses = new ArrayList<>();
        for (Future<HttpResponse<String>> answer : answers) {
            responses.add(answer.get(30, TimeUnit.SECONDS));
        }
        clients.shutdown();

        assertEquals(bodies(first, "held", 0), answeredBodies(responses.get(0)));
        assertEquals(bodies(first, "same", 0, 1), answeredBodies(responses.get(1)));
        assertEquals(bodies(second, "same", 0, 1), answeredBodies(responses.get(2)));
        assertEquals(204, responses.get(3).statusCode(), responses.get(3).body());
        assertEquals(2, statements() - statementsBefore, "the held claim alone, then the three together");
        assertEquals(
                1,
                Db.count(pool, "SELECT count(DISTINCT created_at) FROM claims WHERE id = ANY($1::uuid[])", (Object)
                        new UUID[] {claimId(responses.get(1)), claimId(responses.get(2))}),
                "the two shared one statement");
    }

    /**
     * Sixteen parallel clients, each with its own queue (two projects, eight queue names each: every name twice),
     * claim on their own queue and then on each other's in turn until the queues run dry: no message is claimed twice,
     * every claim holds only its own queue's messages, and what was answered is exactly what the database holds.
     */
    @Test
    void manyClientsClaimingOnManyQueuesAtOnceEachGetOnlyTheirOwnQueuesMessagesOnce() throws Exception {
        int clients = 16;
        int perQueue = 40;
        String[] projects = {Api.newProject(), Api.newProject()};
        List<PlacedQueue> queues = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            queues.add(queue(projects[c % 2], "q" + c / 2));
        }
        for (PlacedQueue queue : queues) {
            post(queue.project(), queue.storedName(), perQueue, 0);
        }
        double requestsBefore = summary().totalAmount();
        long statementsBefore = summary().count();

        /* Every message a claim answered: row id to "project/queue/claim". */
        Map<Long, String> claimed = new ConcurrentHashMap<>();
        Map<String, List<Long>> claims = new ConcurrentHashMap<>();
        List<String> failures = new CopyOnWriteArrayList<>();
        ExecutorService workers = Executors.newFixedThreadPool(clients);
        SqlConnection locker = pool.getConnection().await().indefinitely();
        Transaction held = locker.begin().await().indefinitely();
        List<Future<Void>> done = new ArrayList<>();
        try {
            // Every client's first claim, on its own queue, waits behind one held by a lock: then (at least) fifteen
            // claims on fifteen queues of two projects share one statement.
            locker.query("LOCK TABLE claims IN SHARE MODE").execute().await().indefinitely();
            for (int c = 0; c < clients; c++) {
                int first = c;
                Callable<Void> client = () -> {
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    for (int round = 0; round < 30; round++) {
                        // Every queue gets 30 claims of at least 2: more than its 40 messages.
                        PlacedQueue queue = queues.get((first + round) % clients);
                        int limit = 2 + random.nextInt(9);
                        HttpResponse<String> response = claim(queue.project(), queue.storedName(), limit);
                        record(queue, limit, response, claimed, claims, failures);
                    }
                    return null;
                };
                done.add(workers.submit(client));
            }
            Eventually.await(
                    "fifteen claims waiting", Duration.ofSeconds(20), () -> service.claimsWaiting() == clients - 1);
        } finally {
            held.rollback().await().indefinitely();
            locker.close().await().indefinitely();
        }
        for (Future<Void> each : done) {
            each.get(120, TimeUnit.SECONDS);
        }
        workers.shutdown();
        assertEquals(List.of(), failures.subList(0, Math.min(20, failures.size())), failures.size() + " failures");

        // Every queue was asked for more than it held, and nothing was released: every message claimed, each once.
        assertEquals(clients * perQueue, claimed.size(), "every message claimed once");
        for (PlacedQueue queue : queues) {
            Set<Long> answered = new HashSet<>();
            claimed.forEach((id, holder) -> {
                if (holder.startsWith(queue.project() + "/" + queue.storedName() + "/")) {
                    answered.add(id);
                }
            });
            Map<Long, UUID> stored = new HashMap<>();
            for (Row row : Db.run(
                    pool,
                    """
                    SELECT m.id, m.claim_id FROM messages m JOIN queues q ON q.id = m.queue_id
                    WHERE q.project = $1 AND q.name = $2""",
                    queue.project(),
                    queue.storedName())) {
                stored.put(row.getLong("id"), row.getUUID("claim_id"));
            }
            assertEquals(perQueue, stored.size(), queue + " lost or gained messages");
            assertEquals(stored.keySet(), answered, queue + ": claimed as answered");
            stored.forEach((id, claim) -> assertEquals(
                    claimed.get(id), queue.project() + "/" + queue.storedName() + "/" + claim, "holder of " + id));
        }
        // Each claim is recorded on its queue with exactly the rows it answered.
        for (Map.Entry<String, List<Long>> claim : claims.entrySet()) {
            String[] parts = claim.getKey().split("/");
            Row row = Db.run(
                            pool,
                            """
                            SELECT q.project, q.name, c.message_ids FROM claims c JOIN queues q ON q.id = c.queue_id
                            WHERE c.id = $1::uuid""",
                            parts[2])
                    .iterator()
                    .next();
            assertEquals(parts[0] + "/" + parts[1], row.getString("project") + "/" + row.getString("name"));
            assertEquals(
                    claim.getValue().stream().sorted().toList(),
                    List.of(row.getArrayOfLongs("message_ids")),
                    "claim " + claim.getKey());
        }

        // They did share statements, and across queues: claims of several queues were made by one statement (one
        // transaction, one now()).
        double requests = summary().totalAmount() - requestsBefore;
        long statements = summary().count() - statementsBefore;
        assertTrue(requests > statements, requests + " claims in " + statements + " statements");
        assertTrue(
                Db.count(
                                pool,
                                """
                                SELECT count(*) FROM (
                                    SELECT c.created_at FROM claims c JOIN queues q ON q.id = c.queue_id
                                    WHERE q.project = ANY($1::text[])
                                    GROUP BY c.created_at HAVING count(DISTINCT c.queue_id) > 1) shared""",
                                (Object) projects)
                        > 0,
                "claims on different queues shared a statement");
    }

    private void record(
            PlacedQueue queue,
            int limit,
            HttpResponse<String> response,
            Map<Long, String> claimed,
            Map<String, List<Long>> claims,
            List<String> failures)
            throws Exception {
        if (response.statusCode() == 204) {
            return;
        }
        if (response.statusCode() != 201) {
            failures.add("claim on " + queue + ": " + response.statusCode() + " " + response.body());
            return;
        }
        JsonNode messages = JSON.readTree(response.body()).get("messages");
        if (messages.size() > limit) {
            failures.add("a claim of " + limit + " answered " + messages.size());
        }
        String claim = null;
        List<Long> ids = new ArrayList<>();
        for (JsonNode message : messages) {
            String href = message.get("href").asText();
            claim = Messages.claimId(href);
            long id = Messages.rowId(href);
            ids.add(id);
            JsonNode body = message.get("body");
            if (!href.startsWith("/v2/queues/" + queue.storedName() + "/messages/")
                    || !body.get("project").asText().equals(queue.project())
                    || !body.get("queue").asText().equals(queue.storedName())) {
                failures.add("a claim on " + queue + " answered " + href + " " + body);
            }
            String holder = claimed.putIfAbsent(id, queue.project() + "/" + queue.storedName() + "/" + claim);
            if (holder != null) {
                failures.add("message " + id + " claimed by " + claim + " and by " + holder);
            }
        }
        claims.put(queue.project() + "/" + queue.storedName() + "/" + claim, ids);
    }

    private List<Optional<List<Message>>> create(List<ClaimStore.Request> requests) {
        return store.create(pool, requests, 1209600).await().indefinitely().answers();
    }

    private ClaimStore.Request request(String project, String queue, int limit) {
        return new ClaimStore.Request(queue(project, queue), UUID.randomUUID(), limit, TERMS);
    }

    /** The queue's handle on the configured database (the tests' queues are never placed on a pool). */
    private PlacedQueue queue(String project, String name) {
        return new PlacedQueue(pool, project, QueueName.of(name));
    }

    /** Posts {@code count} messages telling their project, queue and index, with a delay. */
    private static void post(String project, String queue, int count, int delay) {
        String document = IntStream.range(0, count)
                .mapToObj(i ->
                        "{\"ttl\": 3600, \"delay\": " + delay + ", \"body\": " + body(project, queue, i, delay) + "}")
                .collect(Collectors.joining(",", "{\"messages\": [", "]}"));
        Api.as(project)
                .contentType(ContentType.JSON)
                .body(document)
                .post("/v2/queues/" + queue + "/messages")
                .then()
                .statusCode(201);
    }

    private static String body(String project, String queue, int index, int delay) {
        return "{\"project\":\"" + project + "\",\"queue\":\"" + queue + "\",\"n\":" + index + ",\"delay\":" + delay
                + "}";
    }

    /** The bodies of undelayed messages {@code indexes} of a queue, as {@link #post} wrote them. */
    private static List<String> bodies(String project, String queue, int... indexes) {
        return IntStream.of(indexes).mapToObj(i -> body(project, queue, i, 0)).toList();
    }

    private static List<String> bodies(List<Message> messages) {
        return messages.stream().map(Message::body).toList();
    }

    private static List<String> answeredBodies(HttpResponse<String> response) throws Exception {
        assertEquals(201, response.statusCode(), response.body());
        List<String> bodies = new ArrayList<>();
        JSON.readTree(response.body())
                .get("messages")
                .forEach(message -> bodies.add(message.get("body").toString()));
        return bodies;
    }

    private static UUID claimId(HttpResponse<String> response) {
        String location = response.headers().firstValue("Location").orElseThrow();
        return UUID.fromString(Messages.id(location));
    }

    private long claimed(String project, String queue) {
        return Db.count(
                pool,
                """
                SELECT count(*) FROM messages m JOIN queues q ON q.id = m.queue_id
                WHERE q.project = $1 AND q.name = $2 AND m.claim_id IS NOT NULL""",
                project,
                queue);
    }

    private long free(String project, String queue) {
        return Db.count(
                pool,
                """
                SELECT count(*) FROM messages m JOIN queues q ON q.id = m.queue_id
                WHERE q.project = $1 AND q.name = $2 AND m.claim_id IS NULL""",
                project,
                queue);
    }

    private HttpResponse<String> claim(String project, String queue, int limit) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(RestAssured.baseURI + ":" + RestAssured.port
                        + "/v2/queues/" + queue + "/claims?limit=" + limit))
                .header("X-Project-Id", project)
                .header("Client-ID", Api.CLIENT_ID)
                .header("Content-Type", "application/json")
                .timeout(Duration.ofSeconds(60))
                .POST(HttpRequest.BodyPublishers.ofString("{\"ttl\": 3600, \"grace\": 60}"))
                .build();
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }

    private DistributionSummary summary() {
        return registry.get("pigeon.statement.requests").tag("kind", "claim").summary();
    }

    private long statements() {
        return summary().count();
    }
}
