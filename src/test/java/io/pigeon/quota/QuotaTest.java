package io.pigeon.quota;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pigeon.maintenance.Sweeper;
import io.pigeon.message.MessageService;
import io.pigeon.testing.Api;
import io.pigeon.testing.Db;
import io.pigeon.testing.Eventually;
import io.pigeon.testing.HeldPosts;
import io.pigeon.testing.Receiver;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import io.restassured.response.ValidatableResponse;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.hamcrest.Matchers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Per-project quotas: past a limit the answer is 403 (a count the caller must lower) or 429 (a backlog that
 * drains), with the error document naming the limit and its setting, and nothing is stored.
 */
@QuarkusTest
@TestProfile(SmallQuotasProfile.class)
class QuotaTest {

    @RegisterExtension
    static final Receiver receiver = new Receiver();

    @Inject
    Pool pool;

    @Inject
    UsageCheck usage;

    @Inject
    Sweeper sweeper;

    @Inject
    MessageService messages;

    private final String project = Api.newProject();

    /** A /v3 push's query: due in a day, so never during a test, and within the ontime horizon. */
    private static final String LATER = "?ontime=" + (System.currentTimeMillis() / 1000 + 86_400);

    private static final String SERVICE = Base64.getUrlEncoder()
            .withoutPadding()
            .encodeToString("http://127.0.0.1:9/later".getBytes(StandardCharsets.UTF_8));

    private ValidatableResponse push(String mergeKey, String body) {
        return given().header("X-Project-Id", project)
                .contentType(ContentType.JSON)
                .body(body)
                .post("/v3/queue/" + mergeKey + "/POST/" + SERVICE + LATER)
                .then();
    }

    private long items(String mergeKey) {
        return Db.count(
                pool,
                "SELECT count(*) FROM dispatch_items i JOIN dispatch_groups g ON g.id = i.group_id "
                        + "WHERE g.project = $1 AND g.merge_key = '" + mergeKey + "'",
                project);
    }

    private static void refused(ValidatableResponse response, int status, String setting) {
        response.statusCode(status)
                .contentType("application/json")
                .body("title", equalTo("Quota exceeded"))
                .body("description", containsString(setting));
        if (status == 429) {
            response.header("Retry-After", "30");
        }
    }

    private ValidatableResponse postV2(String queue, int messages) {
        StringBuilder document = new StringBuilder("{\"messages\": [");
        for (int i = 0; i < messages; i++) {
            document.append(i == 0 ? "" : ",")
                    .append("{\"ttl\": 300, \"body\": ")
                    .append(i)
                    .append('}');
        }
        return Api.as(project)
                .contentType(ContentType.JSON)
                .body(document.append("]}").toString())
                .post("/v2/queues/" + queue + "/messages")
                .then();
    }

    /** Runs the usage check; again when the scheduled one held its lock at that moment and this one did nothing. */
    private void checkUsage() {
        Eventually.await(
                "a usage check that ran",
                Duration.ofSeconds(5),
                () -> usage.check().await().indefinitely() >= 0);
    }

    private long count(String sql) {
        return Db.count(pool, sql, project);
    }

    @Test
    void queuesPerProject() {
        Api.as(project).put("/v1/queues/a").then().statusCode(201);
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{}")
                .put("/v2/queues/b")
                .then()
                .statusCode(201);
        postV2("c", 1).statusCode(201);
        refused(Api.as(project).put("/v1/queues/d").then(), 403, "pigeon.quotas.max-queues-per-project");
        refused(
                Api.as(project)
                        .contentType(ContentType.JSON)
                        .body("{\"k\": 1}")
                        .put("/v2/queues/d")
                        .then(),
                403,
                "pigeon.quotas.max-queues-per-project");
        refused(postV2("d", 1), 403, "pigeon.quotas.max-queues-per-project");
        assertEquals(3, count("SELECT count(*) FROM queues WHERE project = $1"));
        assertEquals(
                1, count("SELECT count(*) FROM messages m JOIN queues q ON q.id = m.queue_id WHERE q.project = $1"));
        // What exists stays usable, and a deleted queue makes room.
        Api.as(project).put("/v1/queues/a").then().statusCode(204);
        postV2("c", 1).statusCode(201);
        Api.as(project).delete("/v1/queues/a").then().statusCode(204);
        Api.as(project).put("/v1/queues/d").then().statusCode(201);
    }

    @Test
    void messagesPerQueueOnceCounted() {
        postV2("full", 6).statusCode(201);
        checkUsage();
        refused(postV2("full", 1), 429, "pigeon.quotas.max-messages-per-queue");
        refused(
                Api.as(project)
                        .contentType(ContentType.JSON)
                        .body("[{\"ttl\": 300, \"body\": 1}]")
                        .post("/v1/queues/full/messages")
                        .then(),
                429,
                "pigeon.quotas.max-messages-per-queue");
        assertEquals(
                6, count("SELECT count(*) FROM messages m JOIN queues q ON q.id = m.queue_id WHERE q.project = $1"));
        // Another queue of the project is not affected; a drained queue takes posts again after the next count.
        postV2("other", 1).statusCode(201);
        Api.as(project).delete("/v2/queues/full/messages?pop=4").then().statusCode(200);
        checkUsage();
        postV2("full", 1).statusCode(201);
    }

    private ValidatableResponse postKeyed(String key, String dedupId) {
        return Api.as(project)
                .contentType(ContentType.JSON)
                .header("Idempotency-Key", key)
                .body("{\"messages\": [{\"body\": 1, \"dedup_id\": \"" + dedupId + "\"}]}")
                .post("/v2/queues/keyed/messages")
                .then();
    }

    @Test
    void postKeysPerProjectAreCountedByEachPost() {
        // Two keys (the post's and its message's dedup_id), then two more: four would pass the quota of 3, at once.
        String first = postKeyed("a", "1").statusCode(201).extract().header("Location");
        refused(postKeyed("b", "2"), 429, "pigeon.quotas.max-post-keys-per-project");
        assertEquals(
                1, count("SELECT count(*) FROM messages m JOIN queues q ON q.id = m.queue_id WHERE q.project = $1"));
        assertEquals(2, count("SELECT count(*) FROM post_keys WHERE project = $1"));
        // A repeat takes no new key: it is still answered. One more key fits, exactly.
        assertEquals(first, postKeyed("a", "1").statusCode(201).extract().header("Location"));
        Api.as(project)
                .contentType(ContentType.JSON)
                .header("Idempotency-Key", "c")
                .body("{\"messages\": [{\"body\": 2}]}")
                .post("/v2/queues/keyed/messages")
                .then()
                .statusCode(201);
        assertEquals(3, count("SELECT count(*) FROM post_keys WHERE project = $1"));
        // Posts without keys are not affected; keys forgotten (their windows over) make room at once.
        postV2("keyed", 1).statusCode(201);
        Db.run(pool, "UPDATE post_keys SET expires_at = now() WHERE project = $1", project);
        Db.run(pool, "UPDATE post_key_counts SET counted_until = now() WHERE project = $1", project);
        postKeyed("d", "4").statusCode(201);
        sweeper.sweep().await().indefinitely();
        assertEquals(0, count("SELECT count(*) FROM post_key_counts WHERE project = $1 AND counted_until <= now()"));
    }

    /**
     * The keys a project holds never pass its quota, however many clients post new ones at once: each post counts its
     * keys, one post at a time, within its transaction (before, a periodic count let them pass it 2.2 times over).
     */
    @Test
    void postKeysHoldExactlyUnderParallelPosts() throws Exception {
        int clients = 16;
        int postsEach = 5;
        ExecutorService parallel = Executors.newFixedThreadPool(clients);
        List<Integer> statuses = new ArrayList<>();
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<List<Integer>>> answers = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                int client = c;
                answers.add(parallel.submit(() -> {
                    start.await();
                    List<Integer> own = new ArrayList<>();
                    for (int i = 0; i < postsEach; i++) {
                        own.add(Api.as(project)
                                .contentType(ContentType.JSON)
                                .header("Idempotency-Key", "k-" + client + "-" + i)
                                .body("{\"messages\": [{\"body\": " + i + "}]}")
                                .post("/v2/queues/raced/messages")
                                .then()
                                .extract()
                                .statusCode());
                    }
                    return own;
                }));
            }
            start.countDown();
            for (Future<List<Integer>> answer : answers) {
                statuses.addAll(answer.get(120, TimeUnit.SECONDS));
            }
        } finally {
            parallel.shutdownNow();
        }
        // One key a post: exactly the quota's worth of posts stored, every other refused.
        assertEquals(3, statuses.stream().filter(status -> status == 201).count(), statuses.toString());
        assertEquals(
                clients * postsEach - 3,
                statuses.stream().filter(status -> status == 429).count(),
                statuses.toString());
        assertEquals(3, count("SELECT count(*) FROM post_keys WHERE project = $1"));
        assertEquals(
                3, count("SELECT count(*) FROM messages m JOIN queues q ON q.id = m.queue_id WHERE q.project = $1"));
        assertEquals(3, count("SELECT COALESCE(sum(keys), 0) FROM post_key_counts WHERE project = $1"));
    }

    @Test
    void subscriptionsPerQueue() {
        for (int i = 0; i < 2; i++) {
            Api.as(project)
                    .contentType(ContentType.JSON)
                    .body("{\"subscriber\": \"mailto:s" + i + "@example.com\"}")
                    .post("/v2/queues/q/subscriptions")
                    .then()
                    .statusCode(201);
        }
        refused(
                Api.as(project)
                        .contentType(ContentType.JSON)
                        .body("{\"subscriber\": \"mailto:s2@example.com\"}")
                        .post("/v2/queues/q/subscriptions")
                        .then(),
                403,
                "pigeon.quotas.max-subscriptions-per-queue");
        assertEquals(2, count("SELECT count(*) FROM subscriptions WHERE project = $1"));
        // Another queue has its own allowance.
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"subscriber\": \"mailto:s2@example.com\"}")
                .post("/v2/queues/q2/subscriptions")
                .then()
                .statusCode(201);
    }

    @Test
    void notificationsPerPost() {
        for (int i = 0; i < 2; i++) {
            Api.as(project)
                    .contentType(ContentType.JSON)
                    .body("{\"subscriber\": \"http://127.0.0.1:9/hook" + i + "\"}")
                    .post("/v2/queues/fan/subscriptions")
                    .then()
                    .statusCode(201);
        }
        // 3 messages x 2 webhooks = 6 notifications, over the 4 one post may queue.
        refused(postV2("fan", 3), 429, "pigeon.quotas.max-notifications-per-post");
        assertEquals(
                0, count("SELECT count(*) FROM messages m JOIN queues q ON q.id = m.queue_id WHERE q.project = $1"));
        assertEquals(0, count("SELECT count(*) FROM dispatch_groups WHERE project = $1"));
        postV2("fan", 2).statusCode(201);
        assertEquals(4, count("SELECT count(*) FROM dispatch_groups WHERE project = $1"));
    }

    @Test
    void postsSharingAStatementAcrossQueuesAreEachRefusedOnlyByTheirOwnQuota() throws Exception {
        String other = Api.newProject();
        postV2("full", 6).statusCode(201);
        checkUsage();
        postV2("fan", 1).statusCode(201);
        for (int i = 0; i < 2; i++) {
            Api.as(project)
                    .contentType(ContentType.JSON)
                    .body("{\"subscriber\": \"http://127.0.0.1:9/hook" + i + "\"}")
                    .post("/v2/queues/fan/subscriptions")
                    .then()
                    .statusCode(201);
        }
        ExecutorService clients = Executors.newFixedThreadPool(5);
        Future<ValidatableResponse> first;
        List<Future<ValidatableResponse>> together = new ArrayList<>();
        try (HeldPosts held = HeldPosts.hold(pool)) {
            first = clients.submit(() -> postTo(other, "first", 1));
            held.awaitOneHeld();
            // Behind it, four posts to three queues of two projects wait and share the next statement.
            together.add(clients.submit(() -> postTo(project, "full", 1)));
            together.add(clients.submit(() -> postTo(project, "fan", 3)));
            together.add(clients.submit(() -> postTo(project, "fan", 2)));
            together.add(clients.submit(() -> postTo(other, "created", 1)));
            Eventually.await("four posts waiting", Duration.ofSeconds(10), () -> messages.postsWaiting() == 4);
        }
        first.get(30, TimeUnit.SECONDS).statusCode(201);
        // Each caller gets the answer it would get alone: the queue over its message count, the post over the
        // notifications one may queue (3 messages x 2 webhooks > 4), and the others stored.
        refused(together.get(0).get(30, TimeUnit.SECONDS), 429, "pigeon.quotas.max-messages-per-queue");
        refused(together.get(1).get(30, TimeUnit.SECONDS), 429, "pigeon.quotas.max-notifications-per-post");
        together.get(2).get(30, TimeUnit.SECONDS).statusCode(201);
        together.get(3).get(30, TimeUnit.SECONDS).statusCode(201);
        clients.shutdown();
        assertEquals(
                List.of("fan:3", "full:6"),
                Db.run(
                                pool,
                                "SELECT q.name || ':' || count(*) FROM messages m JOIN queues q ON q.id = m.queue_id "
                                        + "WHERE q.project = $1 GROUP BY q.name ORDER BY q.name",
                                project)
                        .stream()
                        .map(row -> row.getString(0))
                        .toList());
        assertEquals(4, count("SELECT count(*) FROM dispatch_groups WHERE project = $1"), "2 messages x 2 webhooks");
        assertEquals(
                2,
                Db.count(
                        pool,
                        "SELECT count(*) FROM messages m JOIN queues q ON q.id = m.queue_id WHERE q.project = $1",
                        other));
    }

    private ValidatableResponse postTo(String project, String queue, int messages) {
        StringBuilder document = new StringBuilder("{\"messages\": [");
        for (int i = 0; i < messages; i++) {
            document.append(i == 0 ? "" : ",")
                    .append("{\"ttl\": 300, \"body\": ")
                    .append(i)
                    .append('}');
        }
        return Api.as(project)
                .contentType(ContentType.JSON)
                .body(document.append("]}").toString())
                .post("/v2/queues/" + queue + "/messages")
                .then();
    }

    @Test
    void pendingDeliveriesPerProjectOnceCounted() {
        String service = Base64.getUrlEncoder()
                .withoutPadding()
                .encodeToString("http://127.0.0.1:9/later".getBytes(StandardCharsets.UTF_8));
        for (int i = 0; i < 4; i++) {
            given().header("X-Project-Id", project)
                    .contentType(ContentType.JSON)
                    .body("{\"n\": 1}")
                    .post("/v3/queue/-k" + i + "/POST/" + service + LATER)
                    .then()
                    .statusCode(201);
        }
        checkUsage();
        refused(
                given().header("X-Project-Id", project)
                        .contentType(ContentType.JSON)
                        .body("{\"n\": 1}")
                        .post("/v3/queue/-k9/POST/" + service + LATER)
                        .then(),
                429,
                "pigeon.quotas.max-pending-groups-per-project");
        assertEquals(4, count("SELECT count(*) FROM dispatch_groups WHERE project = $1"));
        // A post that would queue notifications is refused too; one that would not is not.
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"subscriber\": \"http://127.0.0.1:9/hook\"}")
                .post("/v2/queues/hooked/subscriptions")
                .then()
                .statusCode(201);
        refused(postV2("hooked", 1), 429, "pigeon.quotas.max-pending-groups-per-project");
        postV2("quiet", 1).statusCode(201);
    }

    @Test
    void deadGroupsAreDeletedAfterTheirRetention() {
        Db.run(
                pool,
                """
                INSERT INTO dispatch_groups (project, merge_key, method, target, mergeable, envelope, body, state, fire_at,
                                             dead_at)
                VALUES ($1, '-old', 'POST', 'http://127.0.0.1:9/x', false, 'single', '{}', 'dead', now(),
                        now() - interval '8 days'),
                       ($1, '-recent', 'POST', 'http://127.0.0.1:9/x', false, 'single', '{}', 'dead', now(),
                        now() - interval '6 days')""",
                project);
        sweeper.sweep().await().indefinitely();
        assertEquals(1, count("SELECT count(*) FROM dispatch_groups WHERE project = $1 AND merge_key = '-recent'"));
        assertEquals(0, count("SELECT count(*) FROM dispatch_groups WHERE project = $1 AND merge_key = '-old'"));
    }

    /**
     * Issue 25, item 4: one group took unlimited items. The push checks the group's count on its row, locked by its
     * upsert, so parallel pushes cannot pass the limit either.
     */
    @Test
    void itemsPerGroupHoldExactlyUnderParallelPushes() throws Exception {
        for (int i = 0; i < 3; i++) {
            push("full", "{\"n\": " + i + "}").statusCode(201);
        }
        refused(push("full", "{\"n\": 3}"), 429, "pigeon.quotas.max-items-per-group");
        assertEquals(3, items("full"));
        push("other", "{\"n\": 0}").statusCode(201);

        int clients = 8;
        ExecutorService parallel = Executors.newFixedThreadPool(clients);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<List<Integer>>> answers = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                answers.add(parallel.submit(() -> {
                    start.await();
                    List<Integer> statuses = new ArrayList<>();
                    for (int i = 0; i < 3; i++) {
                        statuses.add(
                                push("raced", "{\"n\": " + i + "}").extract().statusCode());
                    }
                    return statuses;
                }));
            }
            start.countDown();
            List<Integer> statuses = new ArrayList<>();
            for (Future<List<Integer>> answer : answers) {
                statuses.addAll(answer.get(60, TimeUnit.SECONDS));
            }
            assertEquals(3, statuses.stream().filter(status -> status == 201).count(), statuses.toString());
            assertEquals(
                    clients * 3 - 3,
                    statuses.stream().filter(status -> status == 429).count(),
                    statuses.toString());
        } finally {
            parallel.shutdownNow();
        }
        assertEquals(3, items("raced"));
        // What the group shows and what the quota counts agree.
        assertEquals(3, count("SELECT items FROM dispatch_groups WHERE project = $1 AND merge_key = 'raced'"));
    }

    @Test
    void pendingItemsPerProjectOnceCounted() {
        for (String key : List.of("a", "b", "c")) {
            for (int i = 0; i < 3; i++) {
                push(key, "{\"n\": " + i + "}").statusCode(201);
            }
        }
        checkUsage();
        // 9 items, over the 8 the project may hold (its 3 groups are within theirs).
        refused(push("d", "{\"n\": 0}"), 429, "pigeon.quotas.max-pending-items-per-project");
        assertEquals(0, items("d"));
        // Dropping a path makes room once counted again.
        given().header("X-Project-Id", project)
                .delete("/v3/queue/a/POST/" + SERVICE)
                .then()
                .statusCode(204);
        checkUsage();
        push("d", "{\"n\": 0}").statusCode(201);
    }

    @Test
    void pendingBytesPerProjectOnceCounted() {
        String pad = "b".repeat(2000);
        push("big", "{\"pad\": \"" + pad + "\"}").statusCode(201);
        push("big", "{\"pad\": \"" + pad + "\"}").statusCode(201);
        checkUsage();
        // About 4,000 bytes, over the 3,000 the project may hold.
        refused(push("small", "{}"), 429, "pigeon.quotas.max-pending-bytes-per-project");
        refused(push("big", "{}"), 429, "pigeon.quotas.max-pending-bytes-per-project");
        assertEquals(2, items("big"));
        assertEquals(0, items("small"));
    }

    /** Issue 25, item 4: a group pushed for year 9999 was kept until then. */
    @Test
    void pendingGroupsOlderThanTheMaximumAgeAreBuriedAsDead() {
        Db.run(
                pool,
                """
                WITH g AS (
                    INSERT INTO dispatch_groups (project, merge_key, method, target, mergeable, envelope, fire_at,
                                                 created_at, lease_token, lease_until)
                    VALUES ($1, 'ancient', 'POST', 'http://127.0.0.1:9/later', true, 'array', now() + interval '1 day',
                            now() - interval '61 days', NULL, NULL),
                           ($1, 'calling', 'POST', 'http://127.0.0.1:9/later', true, 'array', now() + interval '1 minute',
                            now() - interval '61 days', gen_random_uuid(), now() + interval '1 minute'),
                           ($1, 'young', 'POST', 'http://127.0.0.1:9/later', true, 'array', now() + interval '1 day',
                            now() - interval '59 days', NULL, NULL)
                    RETURNING id)
                INSERT INTO dispatch_items (group_id, body) SELECT id, '{}' FROM g""",
                project);
        sweeper.sweep().await().indefinitely();
        var dead = given().header("X-Project-Id", project)
                .get("/v3/dead-groups")
                .then()
                .statusCode(200)
                .body("groups.merge_key", Matchers.contains("ancient"))
                .body("groups[0].items", equalTo(1))
                .body("groups[0].last_error", containsString("pigeon.dispatch.max-pending-age"));
        assertEquals(2, count("SELECT count(*) FROM dispatch_groups WHERE project = $1 AND state = 'pending'"));
        // The path is free for new pushes, and the buried group can be requeued like any dead one.
        push("ancient", "{}").statusCode(201);
        String id = dead.extract().jsonPath().getString("groups[0].id");
        given().header("X-Project-Id", project)
                .post("/v3/dead-groups/" + id + "/requeue")
                .then()
                .statusCode(204);
        assertEquals(2, items("ancient"));
        // The moved items are counted in the live group's items.
        assertEquals(2, count("SELECT items FROM dispatch_groups WHERE project = $1 AND merge_key = 'ancient'"));
    }

    private ValidatableResponse requeue(String groupId) {
        return given().header("X-Project-Id", project)
                .post("/v3/dead-groups/" + groupId + "/requeue")
                .then();
    }

    private List<String> deadGroupIds() {
        return given()
                .header("X-Project-Id", project)
                .get("/v3/dead-groups?limit=100")
                .then()
                .statusCode(200)
                .extract()
                .jsonPath()
                .getList("groups.id", Object.class)
                .stream()
                .map(String::valueOf)
                .toList();
    }

    /**
     * Issue 25, second round: a dead group requeued into its path's pending group joined it whatever their items
     * together, so requeueing again and again grew one group without bound. The move is checked on the live group's
     * locked row, as a push is.
     */
    @Test
    void aRequeueThatWouldPassTheItemsPerGroupIsRefused() {
        push("rq", "{\"n\": 1}").statusCode(201);
        push("rq", "{\"n\": 2}").statusCode(201);
        // Buried by the sweeper, as a group pending longer than pigeon.dispatch.max-pending-age is.
        Db.run(
                pool,
                "UPDATE dispatch_groups SET created_at = now() - interval '61 days' "
                        + "WHERE project = $1 AND merge_key = 'rq'",
                project);
        sweeper.sweep().await().indefinitely();
        String dead = deadGroupIds().get(0);
        push("rq", "{\"n\": 3}").statusCode(201);
        push("rq", "{\"n\": 4}").statusCode(201);

        // 2 dead + 2 pending items: over the 3 a group may hold.
        refused(requeue(dead), 429, "pigeon.quotas.max-items-per-group");
        assertEquals(List.of(dead), deadGroupIds(), "the dead group is still there");
        assertEquals(4, items("rq"));
        assertEquals(
                2,
                count("SELECT items FROM dispatch_groups WHERE project = $1 AND merge_key = 'rq' "
                        + "AND state = 'pending'"));

        // Exactly at the limit it joins.
        given().header("X-Project-Id", project)
                .delete("/v3/queue/rq/POST/" + SERVICE)
                .then()
                .statusCode(204);
        push("rq", "{\"n\": 5}").statusCode(201);
        requeue(dead).statusCode(204);
        assertEquals(List.of(), deadGroupIds());
        assertEquals(
                3,
                count("SELECT items FROM dispatch_groups WHERE project = $1 AND merge_key = 'rq' "
                        + "AND state = 'pending'"));
        assertEquals(3, items("rq"));
    }

    /** A queue whose webhook subscriber is the given URL, with a retry policy that buries a notification at its first failure. */
    private void subscribe(String queue, String subscriber, boolean noRetries) {
        String options = noRetries
                ? ", \"options\": {\"_retry_policy\": {\"retries_with_no_delay\": 0, "
                        + "\"minimum_delay_retries\": 0, \"minimum_delay\": 0, \"maximum_delay\": 0, "
                        + "\"maximum_delay_retries\": 0}}"
                : "";
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"subscriber\": \"" + subscriber + "\"" + options + "}")
                .post("/v2/queues/" + queue + "/subscriptions")
                .then()
                .statusCode(201);
    }

    /**
     * Issue 25, second round: dead groups were outside every quota, so a receiver that always failed let a project
     * keep any number of them (and their bodies) for the dead retention. They count toward the same limits.
     */
    @Test
    void deadDeliveriesCountTowardTheProjectsQuotas() {
        String hook = "/failing/" + UUID.randomUUID();
        receiver.script(hook, Receiver.Answer.status(500));
        subscribe("dying", receiver.url(hook), true);
        // 4 notifications, each dead at its first failure: over the 3 groups the project may hold.
        postV2("dying", 4).statusCode(201);
        Eventually.await(
                "four dead notifications",
                Duration.ofSeconds(30),
                () -> deadGroupIds().size() == 4);
        assertEquals(0, count("SELECT count(*) FROM dispatch_groups WHERE project = $1 AND state = 'pending'"));
        checkUsage();

        refused(push("after", "{}"), 429, "pigeon.quotas.max-pending-groups-per-project");
        refused(postV2("dying", 1), 429, "pigeon.quotas.max-pending-groups-per-project");
        assertEquals(0, items("after"));
        assertEquals(
                4, count("SELECT count(*) FROM messages m JOIN queues q ON q.id = m.queue_id WHERE q.project = $1"));

        // Dropping dead groups makes room once counted again.
        for (String id : deadGroupIds()) {
            given().header("X-Project-Id", project)
                    .delete("/v3/dead-groups/" + id)
                    .then()
                    .statusCode(204);
        }
        checkUsage();
        push("after", "{}").statusCode(201);
    }

    /**
     * Issue 25, second round: a notification keeps its body in its group's row, and those bytes were counted nowhere:
     * large messages to a few subscribers held any amount. They count toward the project's bytes.
     */
    @Test
    void notificationBodiesCountTowardThePendingBytes() {
        // Nothing listens there: the notifications stay pending (retried) or end dead, held either way.
        subscribe("heavy", "http://127.0.0.1:9/hook", false);
        String pad = "n".repeat(2000);
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"messages\": [{\"ttl\": 300, \"body\": \"" + pad + "\"}, {\"ttl\": 300, \"body\": \"" + pad
                        + "\"}]}")
                .post("/v2/queues/heavy/messages")
                .then()
                .statusCode(201);
        assertEquals(2, count("SELECT count(*) FROM dispatch_groups WHERE project = $1"));
        checkUsage();

        // About 4,000 bytes of notifications, over the 3,000 the project may hold (its 2 groups are within theirs).
        refused(postV2("heavy", 1), 429, "pigeon.quotas.max-pending-bytes-per-project");
        refused(push("small", "{}"), 429, "pigeon.quotas.max-pending-bytes-per-project");
        assertEquals(2, count("SELECT count(*) FROM dispatch_groups WHERE project = $1"));
        // A post that notifies nobody is not a delivery.
        postV2("quiet", 1).statusCode(201);
    }
}
