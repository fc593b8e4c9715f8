package io.pigeon.subscription;

import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pigeon.maintenance.Sweeper;
import io.pigeon.message.MessageIds;
import io.pigeon.message.MessageService;
import io.pigeon.pool.PoolUri;
import io.pigeon.queue.QueueName;
import io.pigeon.rules.Rejection;
import io.pigeon.subscription.SocketSubscriptions.SocketInbox;
import io.pigeon.subscription.SocketSubscriptions.SocketNotification;
import io.pigeon.testing.Api;
import io.pigeon.testing.Db;
import io.pigeon.testing.Eventually;
import io.pigeon.testing.HeldPosts;
import io.pigeon.testing.Migrations;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;

/**
 * Sockets subscribed through {@link SocketSubscriptions} get the messages posted to their queues over HTTP, through
 * the database's NOTIFY and a read-back (the only path there is, also within one replica), and nothing else.
 */
@QuarkusTest
class SocketPushesTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final AtomicLong SOCKETS = new AtomicLong();
    private static final Duration WITHIN = Duration.ofSeconds(10);

    @Inject
    SocketSubscriptions sockets;

    @Inject
    Pool pool;

    @Inject
    Sweeper sweeper;

    @Inject
    MessageService messages;

    @Inject
    Flyway application;

    @Inject
    Vertx vertx;

    private final String project = Api.newProject();

    /** A socket as the transport would hold it: what it is handed, in order. */
    static final class TestInbox implements SocketInbox {
        final String id = "test-socket-" + SOCKETS.incrementAndGet();
        final List<SocketNotification> received = new CopyOnWriteArrayList<>();

        @Override
        public String socketId() {
            return id;
        }

        /** The projects the socket's identity admits, as the transport's inbox answers it. */
        volatile Predicate<String> admitted = project -> true;

        @Override
        public void deliver(SocketNotification notification) {
            received.add(notification);
        }

        @Override
        public boolean receivesFor(String project) {
            return admitted.test(project);
        }
    }

    private static SubscriptionService.Fields fields(Integer ttl) {
        return new SubscriptionService.Fields(null, ttl, null);
    }

    private long subscribe(String project, String queue, TestInbox inbox) {
        return sockets.subscribe(project, QueueName.of(queue), fields(null), inbox)
                .await()
                .atMost(WITHIN);
    }

    /** Posts the messages of {@code document} (a JSON array) over v2. */
    private void post(String project, String queue, String document) {
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"messages\": " + document + "}")
                .post("/v2/queues/" + queue + "/messages")
                .then()
                .statusCode(201);
    }

    private static JsonNode json(String text) {
        try {
            return JSON.readTree(text);
        } catch (Exception e) {
            throw new AssertionError(text, e);
        }
    }

    /**
     * A sentinel: a socket of its own on a queue of its own, posted to after what must not arrive. Notices of one
     * database are read back in the order they came, so once the sentinel has its message, anything posted before
     * it has been handled.
     */
    private void afterEverythingBefore() {
        TestInbox sentinel = new TestInbox();
        String queue = "sentinel-" + UUID.randomUUID().toString().substring(0, 8);
        subscribe(project, queue, sentinel);
        post(project, queue, "[{\"ttl\": 300, \"body\": \"sentinel\"}]");
        Eventually.await("the sentinel's push", WITHIN, () -> sentinel.received.size() == 1);
        sockets.forget(sentinel).await().atMost(WITHIN);
    }

    @Test
    void singleAndBatchPostsArePushedOncePerMessageInOrder() {
        TestInbox inbox = new TestInbox();
        long id = subscribe(project, "orders", inbox);
        assertTrue(id > 0);

        post(project, "orders", "[{\"ttl\": 120, \"body\": {\"n\": 0}}]");
        post(
                project,
                "orders",
                "[{\"ttl\": 121, \"body\": {\"n\": 1}}, {\"body\": [2, \"two\"]}, {\"ttl\": 123, \"body\": null}]");
        Eventually.await("four pushes", WITHIN, () -> inbox.received.size() >= 4);
        List<SocketNotification> got = inbox.received;
        assertEquals(4, got.size(), got.toString());
        assertEquals(new SocketNotification(120, got.get(0).bodyJson(), "orders"), got.get(0));
        assertEquals(json("{\"n\": 0}"), json(got.get(0).bodyJson()));
        assertEquals(121, got.get(1).ttl());
        assertEquals(json("{\"n\": 1}"), json(got.get(1).bodyJson()));
        // No ttl given: the queue's default, as Zaqar fills it.
        assertEquals(3600, got.get(2).ttl());
        assertEquals(json("[2, \"two\"]"), json(got.get(2).bodyJson()));
        assertEquals(json("null"), json(got.get(3).bodyJson()));
        got.forEach(n -> assertEquals("orders", n.queueName()));

        // Shown as a subscription of the queue, with a subscriber no HTTP client could give.
        Api.as(project)
                .get("/v2/queues/orders/subscriptions/" + MessageIds.format(id))
                .then()
                .statusCode(200)
                .body("subscriber", startsWith(SocketPushes.SUBSCRIBER_PREFIX))
                .body("ttl", equalTo(3600));
        // The dispatcher has nothing to call for it.
        assertEquals(0, Db.count(pool, "SELECT count(*) FROM dispatch_groups WHERE project = $1", project));
    }

    @Test
    void aTopicAndASealedQueueArePushedTheirNameAndTheClearBody() {
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"_enable_encrypt_messages\": true}")
                .put("/v2/queues/sealed")
                .then()
                .statusCode(201);
        TestInbox inbox = new TestInbox();
        subscribe(project, "sealed", inbox);
        TestInbox topicInbox = new TestInbox();
        sockets.subscribe(project, QueueName.topic("news"), fields(null), topicInbox)
                .await()
                .atMost(WITHIN);
        post(project, "sealed", "[{\"ttl\": 300, \"body\": {\"secret\": 42}}]");
        assertNotEquals(
                0,
                Db.count(
                        pool,
                        """
                        SELECT count(*) FROM messages m JOIN queues q ON q.id = m.queue_id
                        WHERE q.project = $1 AND q.name = 'sealed' AND m.key_id IS NOT NULL""",
                        project));
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"messages\": [{\"ttl\": 300, \"body\": \"headline\"}]}")
                .post("/v2/topics/news/messages")
                .then()
                .statusCode(201);
        Eventually.await("the sealed push", WITHIN, () -> inbox.received.size() == 1);
        assertEquals(json("{\"secret\": 42}"), json(inbox.received.get(0).bodyJson()));
        Eventually.await("the topic's push", WITHIN, () -> topicInbox.received.size() == 1);
        assertEquals("news", topicInbox.received.get(0).queueName());
    }

    @Test
    void postsSharingAStatementArePushedEachToItsOwnQueuesSockets() throws Exception {
        String other = Api.newProject();
        TestInbox mine = new TestInbox();
        TestInbox theirs = new TestInbox();
        subscribe(project, "shared", mine);
        subscribe(other, "shared", theirs);
        int posts = 6;
        ExecutorService clients = Executors.newFixedThreadPool(posts);
        List<Future<?>> done = new ArrayList<>();
        try {
            try (HeldPosts held = HeldPosts.hold(pool)) {
                // The first post is held in flight; the others wait behind it and share the next statement.
                done.add(clients.submit(() -> post(project, "held-" + UUID.randomUUID(), "[{\"body\": 0}]")));
                held.awaitOneHeld();
                for (int p = 1; p < posts; p++) {
                    String poster = p % 2 == 0 ? project : other;
                    String document = "[{\"ttl\": 200, \"body\": {\"p\": " + p + ", \"m\": 0}}, "
                            + "{\"ttl\": 200, \"body\": {\"p\": " + p + ", \"m\": 1}}]";
                    done.add(clients.submit(() -> post(poster, "shared", document)));
                }
                Eventually.await("posts waiting", WITHIN, () -> messages.postsWaiting() == posts - 1);
            }
            for (Future<?> each : done) {
                each.get(30, TimeUnit.SECONDS);
            }
        } finally {
            clients.shutdownNow();
        }
        // Project 'project' posted p = 2 and 4, the other p = 1, 3, 5: two messages each, in each post's order.
        Eventually.await("my pushes", WITHIN, () -> mine.received.size() >= 4);
        Eventually.await("their pushes", WITHIN, () -> theirs.received.size() >= 6);
        afterEverythingBefore();
        assertEquals(4, mine.received.size(), mine.received.toString());
        assertEquals(6, theirs.received.size(), theirs.received.toString());
        for (TestInbox inbox : List.of(mine, theirs)) {
            int expected = inbox == mine ? 0 : 1;
            List<Integer> seen = new ArrayList<>();
            for (SocketNotification n : inbox.received) {
                JsonNode body = json(n.bodyJson());
                assertEquals(expected, body.get("p").intValue() % 2, n.toString());
                seen.add(body.get("p").intValue() * 10 + body.get("m").intValue());
                assertEquals(200, n.ttl());
                assertEquals("shared", n.queueName());
            }
            // Each post's two messages in their order, next to each other (one statement, ids in post order).
            for (int i = 0; i < seen.size(); i += 2) {
                assertEquals(seen.get(i) + 1, seen.get(i + 1), seen.toString());
            }
        }
        // One statement, one transaction: all ten messages of the shared statement have the same created_at.
        assertEquals(
                1,
                Db.count(
                        pool,
                        """
                        SELECT count(DISTINCT m.created_at) FROM messages m JOIN queues q ON q.id = m.queue_id
                        WHERE q.name = 'shared' AND q.project IN ($1, $2)""",
                        project,
                        other));
    }

    @Test
    void aForgottenSocketGetsNothingMoreAndItsSubscriptionsAreGone() {
        TestInbox inbox = new TestInbox();
        subscribe(project, "a", inbox);
        subscribe(project, "b", inbox);
        post(project, "a", "[{\"ttl\": 300, \"body\": 1}]");
        Eventually.await("the first push", WITHIN, () -> inbox.received.size() == 1);

        sockets.forget(inbox).await().atMost(WITHIN);
        assertEquals(0, Db.count(pool, "SELECT count(*) FROM subscriptions WHERE project = $1", project));
        post(project, "a", "[{\"ttl\": 300, \"body\": 2}]");
        post(project, "b", "[{\"ttl\": 300, \"body\": 3}]");
        afterEverythingBefore();
        assertEquals(1, inbox.received.size(), inbox.received.toString());
        // A forgotten socket cannot subscribe again (it would leave a row renewed for nobody).
        assertThrows(
                IllegalStateException.class, () -> sockets.subscribe(project, QueueName.of("c"), fields(null), inbox)
                        .await()
                        .atMost(WITHIN));
    }

    /**
     * A socket whose identity no longer admits a project (a token that expired, or was replaced before its
     * subscriptions there were dropped) is pushed nothing of that project, whatever rows remain; forgetting what it
     * no longer admits deletes those rows and keeps the others.
     */
    @Test
    void aSocketIsPushedOnlyWhatItsIdentityAdmitsNow() {
        String other = Api.newProject();
        TestInbox inbox = new TestInbox();
        subscribe(project, "revoked", inbox);
        subscribe(other, "granted", inbox);
        inbox.admitted = other::equals;

        post(project, "revoked", "[{\"ttl\": 300, \"body\": \"not pushed\"}]");
        post(other, "granted", "[{\"ttl\": 300, \"body\": \"pushed\"}]");
        Eventually.await("the admitted project's push", WITHIN, () -> !inbox.received.isEmpty());
        afterEverythingBefore();
        assertEquals(
                List.of("granted"),
                inbox.received.stream().map(SocketNotification::queueName).toList());
        // Until forgotten, the row stays (the transport forgets it when the token is replaced).
        assertEquals(1, Db.count(pool, "SELECT count(*) FROM subscriptions WHERE project = $1", project));

        sockets.forgetRevoked(inbox).await().atMost(WITHIN);
        assertEquals(0, Db.count(pool, "SELECT count(*) FROM subscriptions WHERE project = $1", project));
        assertEquals(1, Db.count(pool, "SELECT count(*) FROM subscriptions WHERE project = $1", other));
        post(other, "granted", "[{\"ttl\": 300, \"body\": \"still pushed\"}]");
        Eventually.await("the kept subscription's push", WITHIN, () -> inbox.received.size() == 2);

        // A subscription stored while its project is no longer admitted is deleted as it is stored.
        subscribe(project, "late", inbox);
        assertEquals(0, Db.count(pool, "SELECT count(*) FROM subscriptions WHERE project = $1", project));
        sockets.forget(inbox).await().atMost(WITHIN);
    }

    @Test
    void anotherProjectsQueueOfTheSameNameReachesNoSocketEvenWithTheSameSubscriber() {
        TestInbox inbox = new TestInbox();
        long id = subscribe(project, "twin", inbox);
        String subscriber = Db.run(pool, "SELECT subscriber FROM subscriptions WHERE id = $1", id)
                .iterator()
                .next()
                .getString(0);
        String other = Api.newProject();
        post(other, "twin", "[{\"ttl\": 300, \"body\": \"not for you\"}]");
        // Even a row forged in the database with this socket's very subscriber, under the other project.
        Db.run(
                pool,
                """
                INSERT INTO subscriptions (project, source, subscriber, ttl, options, expires_at, socket_lease_until)
                VALUES ($1, 'twin', $2, 600, '{}', now() + interval '600 seconds', now() + interval '600 seconds')""",
                other,
                subscriber);
        post(other, "twin", "[{\"ttl\": 300, \"body\": \"nor this\"}]");
        afterEverythingBefore();
        assertEquals(List.of(), inbox.received);
        assertEquals(0, Db.count(pool, "SELECT count(*) FROM dispatch_groups WHERE project = $1", other));
    }

    @Test
    void httpCannotMakeOrBecomeASocketSubscriber() {
        TestInbox inbox = new TestInbox();
        long id = subscribe(project, "forged", inbox);
        String subscriber = Db.run(pool, "SELECT subscriber FROM subscriptions WHERE id = $1", id)
                .iterator()
                .next()
                .getString(0);
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"subscriber\": \"" + subscriber + "\", \"ttl\": 600}")
                .post("/v2/queues/forged/subscriptions")
                .then()
                .statusCode(400);
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"subscriber\": \"SOCKET:" + UUID.randomUUID() + "\"}")
                .post("/v2/queues/other/subscriptions")
                .then()
                .statusCode(400);
        String webhook = Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"subscriber\": \"http://localhost:1/hook\", \"ttl\": 600}")
                .post("/v2/queues/forged/subscriptions")
                .then()
                .statusCode(201)
                .extract()
                .path("subscription_id");
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"subscriber\": \"" + subscriber + "\"}")
                .patch("/v2/queues/forged/subscriptions/" + webhook)
                .then()
                .statusCode(400);
        assertEquals(
                1,
                Db.count(
                        pool,
                        "SELECT count(*) FROM subscriptions WHERE project = $1 AND subscriber LIKE 'socket:%'",
                        project));

        // The same socket twice on one queue is a duplicate, as Zaqar refuses a subscriber twice.
        Rejection duplicate = assertThrows(Rejection.class, () -> subscribe(project, "forged", inbox));
        assertEquals(Rejection.Reason.DUPLICATE, duplicate.reason());

        // HTTP deletes it as any subscription: the socket then gets nothing more from that queue.
        Api.as(project)
                .delete("/v2/queues/forged/subscriptions/" + MessageIds.format(id))
                .then()
                .statusCode(204);
        post(project, "forged", "[{\"ttl\": 300, \"body\": 1}]");
        afterEverythingBefore();
        assertEquals(List.of(), inbox.received);
    }

    @Test
    void aSubscriptionWhoseLeaseRanOutIsSweptAndRenewalKeepsTheOthers() {
        TestInbox inbox = new TestInbox();
        long lapsed = subscribe(project, "lapsed", inbox);
        long kept = subscribe(project, "kept", inbox);
        ObjectNode options = JSON.createObjectNode().put("note", "kept");
        TestInbox other = new TestInbox();
        sockets.subscribe(project, QueueName.of("kept"), new SubscriptionService.Fields(null, 90, options), other)
                .await()
                .atMost(WITHIN);
        assertEquals(
                90,
                Db.count(
                        pool,
                        "SELECT ttl FROM subscriptions WHERE project = $1 AND source = 'kept' AND options->>'note' = 'kept'",
                        project));
        Db.run(pool, "UPDATE subscriptions SET socket_lease_until = now() - interval '1 second' WHERE id = $1", lapsed);
        sweeper.sweep().await().indefinitely();
        assertEquals(0, Db.count(pool, "SELECT count(*) FROM subscriptions WHERE id = $1", lapsed));
        assertEquals(1, Db.count(pool, "SELECT count(*) FROM subscriptions WHERE id = $1", kept));
        Api.as(project).get("/v2/queues/lapsed/subscriptions").then().body("subscriptions.size()", equalTo(0));
        // Its queue no longer notifies (no live socket subscription), the other still does.
        post(project, "lapsed", "[{\"ttl\": 300, \"body\": \"gone\"}]");
        post(project, "kept", "[{\"ttl\": 300, \"body\": \"here\"}]");
        Eventually.await("the kept queue's push", WITHIN, () -> inbox.received.size() == 1);
        afterEverythingBefore();
        assertEquals(List.of(new SocketNotification(300, "\"here\"", "kept")), inbox.received);
    }

    @Test
    void theMigrationAddsTheLeaseToADatabaseOfVersion16HoldingSubscriptions() {
        PoolUri uri = PoolUri.parse(Db.newDatabase(pool));
        Migrations.migrate(application, uri, "16");
        Pool older = Migrations.open(vertx, uri);
        try {
            Db.run(
                    older,
                    """
                    INSERT INTO subscriptions (project, source, subscriber, ttl, options, expires_at)
                    VALUES ('p', 'q', 'http://example.com/hook', 600, '{}', now() + interval '600 seconds')""");
            Migrations.migrate(application, uri, "latest");
            assertEquals(
                    1,
                    Db.count(
                            older,
                            "SELECT count(*) FROM subscriptions WHERE socket_lease_until IS NULL AND source = 'q'"));
            assertEquals(
                    1,
                    Db.count(older, "SELECT count(*) FROM pg_indexes WHERE indexname = 'subscriptions_socket_leases'"));
        } finally {
            older.closeAndAwait();
        }
    }
}
