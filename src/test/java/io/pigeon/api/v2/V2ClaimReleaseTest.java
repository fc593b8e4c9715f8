package io.pigeon.api.v2;

import static org.hamcrest.Matchers.containsInAnyOrder;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.everyItem;
import static org.hamcrest.Matchers.hasSize;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.maintenance.Sweeper;
import io.pigeon.testing.Api;
import io.pigeon.testing.Db;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Pigeon's release of single messages of a claim ({@code POST .../claims/{id}/release}): what leaves the claim, what
 * stays, the delay, the dead-letter rule, the refusals, and consumers releasing and claiming side by side.
 */
@QuarkusTest
class V2ClaimReleaseTest {

    private static final String OTHER_CLIENT = "0aa1f1b2-58d5-4bbd-9f2b-3b3c9d4e5f60";

    @Inject
    Pool pool;

    @Inject
    Sweeper sweeper;

    private final String project = Api.newProject();

    private void post(String queue, int count) {
        String messages = IntStream.range(0, count)
                .mapToObj(i -> "{\"ttl\": 600, \"body\": " + i + "}")
                .collect(Collectors.joining(",", "{\"messages\": [", "]}"));
        Api.as(project)
                .contentType(ContentType.JSON)
                .body(messages)
                .post("/v2/queues/" + queue + "/messages")
                .then()
                .statusCode(201);
    }

    private static Response claim(String project, String clientId, String queue, int limit) {
        return Api.as(project, clientId)
                .contentType(ContentType.JSON)
                .body("{\"ttl\": 300, \"grace\": 60}")
                .post("/v2/queues/" + queue + "/claims?limit=" + limit);
    }

    private Response claim(String queue, int limit) {
        return claim(project, Api.CLIENT_ID, queue, limit);
    }

    private static List<String> ids(Response claimed) {
        return claimed.jsonPath().getList("messages.id", String.class);
    }

    /** The claim id at the end of a claim's Location. */
    private static String claimId(String location) {
        return location.substring(location.lastIndexOf('/') + 1);
    }

    private static Response release(String project, String claimLocation, String body) {
        return Api.as(project).contentType(ContentType.JSON).body(body).post(claimLocation + "/release");
    }

    private static String releaseBody(List<String> ids, int delay) {
        return ids.stream().map(id -> "\"" + id + "\"").collect(Collectors.joining(", ", "{\"ids\": [", "], "))
                + "\"delay\": " + delay + "}";
    }

    @Test
    void releasedMessagesGoToTheNextClaimAndTheOthersStayClaimed() {
        post("work", 10);
        Response first = claim("work", 10);
        first.then().statusCode(201).body("messages", hasSize(10));
        String location = first.header("Location");
        List<String> all = ids(first);
        List<String> released = List.of(all.get(2), all.get(5), all.get(9));

        release(project, location, releaseBody(released, 0)).then().statusCode(204);

        // Another consumer gets exactly those three; the seven stay with the first claim.
        Response second = claim(project, OTHER_CLIENT, "work", 10);
        second.then()
                .statusCode(201)
                .body("messages.id", containsInAnyOrder(released.toArray()))
                .body("messages.claim_count", everyItem(equalTo(2)));
        claim(project, OTHER_CLIENT, "work", 10).then().statusCode(204);
        List<String> kept = new ArrayList<>(all);
        kept.removeAll(released);
        Api.as(project).get(location).then().statusCode(200).body("messages.id", containsInAnyOrder(kept.toArray()));
        // A renewal of the first claim renews its seven only: the three stay with the second claim.
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"ttl\": 600}")
                .patch(location)
                .then()
                .statusCode(204);
        Api.as(project).get(second.header("Location")).then().body("messages", hasSize(3));
        Api.as(project).get(location).then().body("messages", hasSize(7));
        // The first claim no longer proves a released message; the second does.
        String message = "/v2/queues/work/messages/" + released.get(0);
        Api.as(project)
                .delete(message + "?claim_id=" + claimId(location))
                .then()
                .statusCode(400);
        Api.as(project)
                .delete(message + "?claim_id=" + claimId(second.header("Location")))
                .then()
                .statusCode(204);
        // Releasing again what the claim no longer holds is passed over; the claim is untouched.
        release(project, location, releaseBody(released, 0)).then().statusCode(204);
        Api.as(project).get(location).then().body("messages", hasSize(7));
        Api.as(project).get(second.header("Location")).then().body("messages", hasSize(2));
    }

    @Test
    void aDelayedReleaseIsClaimableOnlyOnceTheDelayHasPassed() {
        post("later", 2);
        Response first = claim("later", 2);
        String location = first.header("Location");
        String delayed = ids(first).get(0);

        long before = System.nanoTime();
        release(project, location, releaseBody(List.of(delayed), 5)).then().statusCode(204);
        long after = System.nanoTime();
        // The database clock decides: its release time lies between before and after. A claim answered before
        // before + 4.5 s must find nothing; the first claim sent after after + 5.5 s must find the message (if no
        // earlier one did). Poll until then, recording when the message came.
        long firstSeen = -1;
        while (firstSeen < 0) {
            long sent = System.nanoTime();
            Response polled = claim(project, OTHER_CLIENT, "later", 10);
            long answered = System.nanoTime();
            if (polled.statusCode() == 201) {
                assertEquals(List.of(delayed), ids(polled));
                firstSeen = answered;
            } else {
                assertEquals(204, polled.statusCode());
                assertTrue(
                        sent < after + 5_500_000_000L,
                        "a claim sent " + (sent - after) / 1e9 + " s after the release found nothing");
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        assertTrue(
                firstSeen >= before + 4_500_000_000L,
                "claimed " + (firstSeen - before) / 1e9 + " s after the release of a 5 s delay");
        // The other message stayed claimed throughout.
        Api.as(project).get(location).then().body("messages", hasSize(1));
    }

    @Test
    void theThirdReleaseOfAMessageClaimedThreeTimesSendsItToTheDeadLetterQueueOnce() {
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"_max_claim_count\": 3, \"_dead_letter_queue\": \"dead\"}")
                .put("/v2/queues/poison")
                .then()
                .statusCode(201);
        post("poison", 1);
        for (int round = 1; round <= 3; round++) {
            Response claimed = claim("poison", 1);
            claimed.then().statusCode(201).body("messages[0].claim_count", equalTo(round));
            release(project, claimed.header("Location"), releaseBody(ids(claimed), 0))
                    .then()
                    .statusCode(204);
            sweeper.sweep().await().indefinitely();
            assertEquals(round < 3 ? 0 : 1, deadLettered(), "after release " + round);
        }
        // Claimed three times: never taken again, and moved once however often the sweeper runs.
        claim("poison", 1).then().statusCode(204);
        sweeper.sweep().await().indefinitely();
        assertEquals(1, deadLettered());
        Api.as(project).get("/v2/queues/poison/stats").then().body("messages.total", equalTo(0));
        Api.as(project)
                .get("/v2/queues/dead/messages?echo=true")
                .then()
                .statusCode(200)
                .body("messages.body", containsInAnyOrder(0));
    }

    private long deadLettered() {
        return Db.count(
                pool,
                "SELECT count(*) FROM messages m JOIN queues q ON q.id = m.queue_id WHERE q.project = $1 AND q.name = 'dead'",
                project);
    }

    @Test
    void aClaimNotTheCallersOrEndedIsNotFound() {
        post("work", 3);
        Response claimed = claim("work", 3);
        String location = claimed.header("Location");
        String claimId = claimId(location);
        String body = releaseBody(ids(claimed), 0);

        // Another project, its own queue of the same name: not found, as Zaqar answers for that project's claim.
        String other = Api.newProject();
        Api.as(other).contentType(ContentType.JSON).body("{}").put("/v2/queues/work");
        notFound(release(other, location, body), claimId, "work", other);
        // Another queue of the same project.
        Api.as(project).contentType(ContentType.JSON).body("{}").put("/v2/queues/elsewhere");
        notFound(release(project, "/v2/queues/elsewhere/claims/" + claimId, body), claimId, "elsewhere", project);
        // No such queue; no such claim; an id that is no claim id.
        notFound(release(project, "/v2/queues/nowhere/claims/" + claimId, body), claimId, "nowhere", project);
        String unknown = UUID.randomUUID().toString();
        notFound(release(project, "/v2/queues/work/claims/" + unknown, body), unknown, "work", project);
        notFound(release(project, "/v2/queues/work/claims/not-a-claim", body), "not-a-claim", "work", project);
        // Nothing changed: the claim holds its three.
        Api.as(project).get(location).then().statusCode(200).body("messages", hasSize(3));

        // Ended: released whole, or past its TTL.
        Api.as(project).delete(location).then().statusCode(204);
        notFound(release(project, location, body), claimId, "work", project);
        Response again = claim("work", 3);
        again.then().statusCode(201).body("messages", hasSize(3));
        Db.run(
                pool,
                "UPDATE claims SET expires_at = now() - interval '1 second' WHERE id = $1",
                UUID.fromString(claimId(again.header("Location"))));
        notFound(
                release(project, again.header("Location"), releaseBody(ids(again), 0)),
                claimId(again.header("Location")),
                "work",
                project);
    }

    private static void notFound(Response answer, String claimId, String queue, String project) {
        answer.then()
                .statusCode(404)
                .contentType(ContentType.JSON)
                .body("title", equalTo("Not found"))
                .body(
                        "description",
                        equalTo("Claim " + claimId + " does not exist in queue " + queue + " for project " + project));
    }

    @Test
    void badBodiesAreRefusedNamingTheFieldAndChangeNothing() {
        post("work", 3);
        Response claimed = claim("work", 3);
        String location = claimed.header("Location");
        String id = ids(claimed).get(0);
        String tooMany = IntStream.range(0, 21)
                .mapToObj(i -> "\"" + id + "\"")
                .collect(Collectors.joining(",", "{\"ids\": [", "]}"));
        String huge = IntStream.range(0, 5000)
                .mapToObj(i -> "\"" + id + "\"")
                .collect(Collectors.joining(",", "{\"ids\": [", "]}"));
        List<List<String>> refused = List.of(
                List.of("{}", "Missing \"ids\" field."),
                List.of("{\"delay\": 0}", "Missing \"ids\" field."),
                List.of("{\"ids\": []}", "\"ids\" field must name at least 1 and at most 20"),
                List.of(tooMany, "\"ids\" field must name at least 1 and at most 20"),
                List.of(huge, "\"ids\" field must name at least 1 and at most 20"),
                List.of("{\"ids\": \"" + id + "\"}", "\"ids\" field must be a list"),
                List.of("{\"ids\": null}", "\"ids\" field must be a list"),
                List.of("{\"ids\": [1, 2]}", "\"ids\" field must be a list of message ids (strings)"),
                List.of("{\"ids\": [[\"" + id + "\"]]}", "\"ids\" field must be a list"),
                List.of(
                        "{\"ids\": [\"" + id + "\"], \"delay\": -1}",
                        "may not exceed 900 seconds, and must be at least 0"),
                List.of("{\"ids\": [\"" + id + "\"], \"delay\": 901}", "may not exceed 900 seconds"),
                List.of("{\"ids\": [\"" + id + "\"], \"delay\": 99999999999999999999}", "may not exceed 900 seconds"),
                List.of("{\"ids\": [\"" + id + "\"], \"delay\": 1e400}", "\"delay\" field must be a int"),
                List.of("{\"ids\": [\"" + id + "\"], \"delay\": 1.5}", "\"delay\" field must be a int"),
                List.of("{\"ids\": [\"" + id + "\"], \"delay\": \"5\"}", "\"delay\" field must be a int"),
                List.of("{\"ids\": [\"" + id + "\"], \"delay\": null}", "\"delay\" field must be a int"),
                List.of("[\"" + id + "\"]", "A release is a JSON object"),
                List.of("{\"ids\": [", "could not be parsed"));
        for (List<String> bad : refused) {
            release(project, location, bad.get(0))
                    .then()
                    .statusCode(400)
                    .contentType(ContentType.JSON)
                    .body("description", containsString(bad.get(1)));
        }
        // Not JSON at all, or no body.
        Api.as(project)
                .contentType(ContentType.TEXT)
                .body("{\"ids\": [\"" + id + "\"]}")
                .post(location + "/release")
                .then()
                .statusCode(400)
                .body("title", equalTo("Invalid Content-Type"));
        Api.as(project)
                .contentType(ContentType.JSON)
                .post(location + "/release")
                .then()
                .statusCode(400)
                .body("description", equalTo("Request body can not be empty"));
        // A bad body is refused before the claim is looked for, as a renewal's terms are.
        release(project, "/v2/queues/work/claims/" + UUID.randomUUID(), "{}")
                .then()
                .statusCode(400);
        // Nothing changed: the claim holds its three, nothing is free.
        Api.as(project).get(location).then().statusCode(200).body("messages", hasSize(3));
        claim(project, OTHER_CLIENT, "work", 10).then().statusCode(204);
        // Ids the claim does not hold (malformed, unknown) are passed over; the delay defaults to none.
        release(project, location, "{\"ids\": [\"zz\", \"000000000000000000000001\", \"" + id + "\"]}")
                .then()
                .statusCode(204);
        Api.as(project).get(location).then().body("messages", hasSize(2));
        claim(project, OTHER_CLIENT, "work", 10).then().statusCode(201).body("messages.id", containsInAnyOrder(id));
    }

    @Test
    void anotherClaimsMessagesAreNotReleased() {
        post("work", 4);
        Response mine = claim("work", 2);
        Response theirs = claim(project, OTHER_CLIENT, "work", 2);
        release(project, mine.header("Location"), releaseBody(ids(theirs), 0))
                .then()
                .statusCode(204);
        Api.as(project)
                .get(theirs.header("Location"))
                .then()
                .body("messages.id", containsInAnyOrder(ids(theirs).toArray()));
        Api.as(project).get(mine.header("Location")).then().body("messages", hasSize(2));
        claim("work", 10).then().statusCode(204);
    }

    @Test
    void v11HasTheReleaseAndV1HasNot() {
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"messages\": [{\"ttl\": 300, \"body\": 1}, {\"ttl\": 300, \"body\": 2}]}")
                .post("/v1.1/queues/old/messages")
                .then()
                .statusCode(201);
        Response claimed = Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"ttl\": 300, \"grace\": 60}")
                .post("/v1.1/queues/old/claims");
        claimed.then().statusCode(201);
        String location = claimed.header("Location");
        List<String> held = ids(claimed);
        release(project, location, releaseBody(held.subList(0, 1), 0)).then().statusCode(204);
        Api.as(project).get(location).then().body("messages.id", containsInAnyOrder(held.get(1)));
        release(project, location.replace("/v1.1/", "/v1/"), releaseBody(held.subList(1, 2), 0))
                .then()
                .statusCode(404);
    }

    /**
     * Two consumers side by side, each claiming, releasing some of what it got (at once) and deleting the rest: every
     * message is deleted exactly once (no message was held by both), and none is left behind.
     */
    @Test
    void consumersReleasingAndClaimingInParallelNeitherLoseNorDuplicate() throws Exception {
        int total = 200;
        for (int batch = 0; batch < total / 20; batch++) {
            post("busy", 20);
        }
        Set<String> deleted = ConcurrentHashMap.newKeySet();
        List<String> duplicates = Collections.synchronizedList(new ArrayList<>());
        ExecutorService consumers = Executors.newFixedThreadPool(2);
        try {
            List<Future<Integer>> done = new ArrayList<>();
            for (String client : List.of(Api.CLIENT_ID, OTHER_CLIENT)) {
                done.add(consumers.submit(() -> {
                    int releases = 0;
                    long deadline = System.nanoTime() + 120_000_000_000L;
                    while (deleted.size() < total && System.nanoTime() < deadline) {
                        Response claimed = claim(project, client, "busy", 10);
                        if (claimed.statusCode() == 204) {
                            continue;
                        }
                        assertEquals(201, claimed.statusCode(), claimed.asString());
                        String location = claimed.header("Location");
                        List<String> got = ids(claimed);
                        // Give back every other message (the first of each pair), delete the rest.
                        List<String> back = new ArrayList<>();
                        for (int i = 0; i < got.size(); i += 2) {
                            back.add(got.get(i));
                        }
                        if (got.size() > 1) {
                            assertEquals(
                                    204,
                                    release(project, location, releaseBody(back, 0))
                                            .statusCode());
                            releases++;
                        } else {
                            back.clear();
                        }
                        for (String id : got) {
                            if (back.contains(id)) {
                                continue;
                            }
                            if (!deleted.add(id)) {
                                duplicates.add(id);
                            }
                            assertEquals(
                                    204,
                                    Api.as(project, client)
                                            .delete("/v2/queues/busy/messages/" + id + "?claim_id=" + claimId(location))
                                            .statusCode());
                        }
                    }
                    return releases;
                }));
            }
            int releases = 0;
            for (Future<Integer> consumer : done) {
                releases += consumer.get();
            }
            assertTrue(releases > 10, "releases: " + releases);
        } finally {
            consumers.shutdownNow();
        }
        assertEquals(List.of(), duplicates);
        assertEquals(total, deleted.size());
        Api.as(project).get("/v2/queues/busy/stats").then().body("messages.total", equalTo(0));
    }
}
