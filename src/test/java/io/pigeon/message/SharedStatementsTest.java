package io.pigeon.message;

import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.claim.ClaimStore;
import io.pigeon.claim.ClaimTerms;
import io.pigeon.queue.PlacedQueue;
import io.pigeon.queue.QueueName;
import io.pigeon.testing.Api;
import io.pigeon.testing.Db;
import io.pigeon.testing.Messages;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/**
 * The statements several requests share (see {@code Coalescer}), run with several requests at once against
 * PostgreSQL: each request gets exactly its own answer, and one's refusal takes nothing from the others.
 */
@QuarkusTest
class SharedStatementsTest {

    private static final UUID FIRST_CLIENT = UUID.randomUUID();
    private static final UUID SECOND_CLIENT = UUID.randomUUID();

    @Inject
    MessageStore messages;

    @Inject
    ClaimStore claims;

    @Inject
    Pool pool;

    @Test
    void postsSharingAStatementEachStoreTheirOwnMessagesAndAnOversizedOneStoresNone() {
        String project = Api.newProject();
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"_max_messages_post_size\": 1000}")
                .put("/v2/queues/shared")
                .then()
                .statusCode(201);
        PlacedQueue shared = queue(project, "shared");
        List<MessageStore.NewPost> posts = List.of(
                post(shared, FIRST_CLIENT, "a", 3, 500),
                post(shared, SECOND_CLIENT, "b", 2, 1001),
                post(shared, SECOND_CLIENT, "c", 4, 1000));

        List<MessageStore.Posted> answers =
                messages.postCreatingQueue(posts, false, 262144, 3600).await().indefinitely();

        assertEquals(3, answers.size());
        assertEquals(3, answers.get(0).ids().length);
        assertEquals(0, answers.get(1).ids().length, "the post over the queue's limit stored nothing");
        assertEquals(1000, answers.get(1).maxSize(), "and is told the limit");
        assertEquals(4, answers.get(2).ids().length);
        assertTrue(answers.get(0).ids()[2] < answers.get(2).ids()[0], "ids follow the posts' order");
        assertStored(project, answers.get(0).ids(), "a", FIRST_CLIENT);
        assertStored(project, answers.get(2).ids(), "c", SECOND_CLIENT);
        assertEquals(
                7,
                Db.count(
                        pool,
                        "SELECT count(*) FROM messages m JOIN queues q ON q.id = m.queue_id "
                                + "WHERE q.project = $1 AND q.name = 'shared'",
                        project),
                "nothing else was stored");
    }

    @Test
    void postsSharingAStatementCreateTheQueueOnce() {
        String project = Api.newProject();
        PlacedQueue created = queue(project, "new");
        List<MessageStore.Posted> answers = messages.postCreatingQueue(
                        List.of(post(created, FIRST_CLIENT, "a", 1, 100), post(created, SECOND_CLIENT, "b", 2, 100)),
                        false,
                        262144,
                        3600)
                .await()
                .indefinitely();
        assertEquals(
                List.of(1, 2),
                answers.stream().map(answer -> answer.ids().length).toList());
        assertEquals(1, Db.count(pool, "SELECT count(*) FROM queues WHERE project = $1", project));
        assertStored(project, answers.get(1).ids(), "b", SECOND_CLIENT, "new");
    }

    @Test
    void postsToQueuesOfSeveralProjectsShareOneStatementEachInItsOwnQueue() {
        String first = Api.newProject();
        String second = Api.newProject();
        createQueue(first, "limited", "{\"_max_messages_post_size\": 1000}");
        createQueue(first, "same", "{}");
        PlacedQueue limited = queue(first, "limited");
        PlacedQueue same = queue(first, "same");
        // Not there yet: created by the statement, the second project's "same" beside the first's.
        PlacedQueue fresh = queue(first, "fresh");
        PlacedQueue otherSame = queue(second, "same");
        List<MessageStore.NewPost> posts = List.of(
                post(limited, FIRST_CLIENT, "a", 3, 500),
                post(otherSame, SECOND_CLIENT, "b", 2, 100),
                post(limited, SECOND_CLIENT, "c", 2, 1001),
                post(same, FIRST_CLIENT, "d", 1, 100),
                post(fresh, SECOND_CLIENT, "e", 2, 100),
                post(otherSame, FIRST_CLIENT, "f", 1, 100),
                post(same, SECOND_CLIENT, "g", 1, 1001));

        // More than one post: the statement of several queues, or a failure (the store never runs them apart).
        List<MessageStore.Posted> answers =
                messages.postCreatingQueue(posts, false, 262144, 3600).await().indefinitely();

        assertEquals(
                List.of(3, 2, 0, 1, 2, 1, 1),
                answers.stream().map(answer -> answer.ids().length).toList());
        assertEquals(
                Arrays.asList(1000, 262144, 1000, 262144, 262144, 262144, 262144),
                answers.stream().map(MessageStore.Posted::maxSize).toList(),
                "each post is told its own queue's limit");
        long previous = 0;
        for (MessageStore.Posted answer : answers) {
            for (long id : answer.ids()) {
                assertTrue(id > previous, "ids follow the posts' order and each post's own");
                previous = id;
            }
        }
        assertStored(first, answers.get(0).ids(), "a", FIRST_CLIENT, "limited");
        assertStored(second, answers.get(1).ids(), "b", SECOND_CLIENT, "same");
        assertStored(first, answers.get(3).ids(), "d", FIRST_CLIENT, "same");
        assertStored(first, answers.get(4).ids(), "e", SECOND_CLIENT, "fresh");
        assertStored(second, answers.get(5).ids(), "f", FIRST_CLIENT, "same");
        assertStored(first, answers.get(6).ids(), "g", SECOND_CLIENT, "same");
        assertEquals(
                List.of("fresh:2", "limited:3", "same:2"),
                messagesPerQueue(first),
                "nothing else in the first project");
        assertEquals(List.of("same:3"), messagesPerQueue(second), "nor in the second");
        assertEquals(3, Db.count(pool, "SELECT count(*) FROM queues WHERE project = $1", first));
        assertEquals(1, Db.count(pool, "SELECT count(*) FROM queues WHERE project = $1", second));
    }

    @Test
    void aSubscribedQueueAmongOthersNotifiesOnlyForItsOwnMessages() {
        String project = Api.newProject();
        String other = Api.newProject();
        createQueue(
                project,
                "hooked",
                "{\"_retry_policy\": {\"retries_with_no_delay\": 2, \"minimum_delay_retries\": 0, "
                        + "\"minimum_delay\": 1, \"maximum_delay\": 1, \"maximum_delay_retries\": 0}}");
        // Nothing listens there: the notifications stay pending while the test reads them.
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"subscriber\": \"http://127.0.0.1:9/hooked\"}")
                .post("/v2/queues/hooked/subscriptions")
                .then()
                .statusCode(201);
        List<MessageStore.NewPost> posts = List.of(
                post(queue(project, "plain"), FIRST_CLIENT, "a", 2, 100),
                post(queue(project, "hooked"), SECOND_CLIENT, "b", 2, 100),
                // Another project's queue of the same name: the subscription is not its.
                post(queue(other, "hooked"), FIRST_CLIENT, "c", 3, 100));

        List<MessageStore.Posted> answers =
                messages.postCreatingQueue(posts, false, 262144, 3600).await().indefinitely();

        assertEquals(
                List.of(2, 2, 3),
                answers.stream().map(answer -> answer.ids().length).toList());
        assertEquals(
                2,
                answers.stream().mapToLong(MessageStore.Posted::notifications).sum());
        List<String> notified = new ArrayList<>();
        for (Row row : Db.run(
                pool,
                "SELECT target, body::json->>'queue_name' AS queue_name, body::json->'body'->>'post' AS post, "
                        + "retry_policy->'queue'->>'retries_with_no_delay' AS retries "
                        + "FROM dispatch_groups WHERE project = $1 ORDER BY id",
                project)) {
            notified.add(row.getString("target") + " " + row.getString("queue_name") + " " + row.getString("post") + " "
                    + row.getString("retries"));
        }
        assertEquals(
                List.of("http://127.0.0.1:9/hooked hooked b 2", "http://127.0.0.1:9/hooked hooked b 2"),
                notified,
                "one notification per message of the subscribed queue, named and retried as that queue");
        assertEquals(0, Db.count(pool, "SELECT count(*) FROM dispatch_groups WHERE project = $1", other));
    }

    @Test
    void eachPostsSealingIsCheckedAgainstItsOwnQueue() {
        String project = Api.newProject();
        createQueue(project, "sealed", "{\"_enable_encrypt_messages\": true}");
        createQueue(project, "clear", "{}");
        MessageStore.NewPost sealed = new MessageStore.NewPost(
                queue(project, "sealed"),
                "test-key",
                FIRST_CLIENT,
                List.of(new NewMessage(3600, null, "\"sealed text\"")),
                100);
        MessageStore.NewPost clear = post(queue(project, "clear"), SECOND_CLIENT, "a", 2, 100);

        List<MessageStore.Posted> answers = messages.postCreatingQueue(List.of(clear, sealed), false, 262144, 3600)
                .await()
                .indefinitely();
        assertEquals(
                List.of(2, 1),
                answers.stream().map(answer -> answer.ids().length).toList());
        assertEquals(
                "test-key",
                Db.run(
                                pool,
                                "SELECT key_id FROM messages WHERE id = $1",
                                answers.get(1).ids()[0])
                        .iterator()
                        .next()
                        .getString(0));
        assertEquals(
                2,
                Db.count(pool, "SELECT count(*) FROM messages WHERE id = ANY($1::bigint[]) AND key_id IS NULL", (Object)
                        boxed(answers.get(0).ids())));

        // A post in clear to the queue that seals fails the statement whole (the caller posts it again, sealed).
        long before = Db.count(
                pool,
                "SELECT count(*) FROM messages m JOIN queues q ON q.id = m.queue_id WHERE q.project = $1",
                project);
        Throwable mismatch = assertThrows(RuntimeException.class, () -> messages.postCreatingQueue(
                        List.of(clear, post(queue(project, "sealed"), FIRST_CLIENT, "b", 1, 100)), false, 262144, 3600)
                .await()
                .indefinitely());
        assertTrue(MessageStore.isSealingMismatch(mismatch), mismatch.toString());
        assertEquals(
                before,
                Db.count(
                        pool,
                        "SELECT count(*) FROM messages m JOIN queues q ON q.id = m.queue_id WHERE q.project = $1",
                        project),
                "nothing was stored");
    }

    @Test
    void claimsSharingAStatementTakeTheOldestInTheirOrderEachWithItsOwnTerms() {
        String project = Api.newProject();
        String document = IntStream.range(0, 7)
                .mapToObj(i -> "{\"ttl\": 3600, \"body\": " + i + "}")
                .collect(Collectors.joining(",", "{\"messages\": [", "]}"));
        Api.as(project)
                .contentType(ContentType.JSON)
                .body(document)
                .post("/v2/queues/claimed/messages")
                .then()
                .statusCode(201);
        UUID first = UUID.randomUUID();
        UUID second = UUID.randomUUID();
        UUID third = UUID.randomUUID();

        PlacedQueue claimed = queue(project, "claimed");
        List<Optional<List<Message>>> taken = claims.create(
                        pool,
                        List.of(
                                new ClaimStore.Request(claimed, first, 2, new ClaimTerms(60, 60)),
                                new ClaimStore.Request(claimed, second, 3, new ClaimTerms(120, 70)),
                                new ClaimStore.Request(claimed, third, 10, new ClaimTerms(90, 80))),
                        1209600)
                .await()
                .indefinitely()
                .answers();

        assertEquals(List.of("0", "1"), bodies(taken.get(0)));
        assertEquals(List.of("2", "3", "4"), bodies(taken.get(1)));
        assertEquals(List.of("5", "6"), bodies(taken.get(2)), "the last gets what is left");
        // Each claim is its own: its terms, its messages, as a client reads it.
        assertClaim(project, first, 60, 2, "0");
        assertClaim(project, second, 120, 3, "2");
        assertClaim(project, third, 90, 2, "5");
        assertEquals(70, Db.count(pool, "SELECT grace FROM claims WHERE id = $1", second));
        assertEquals(3, Db.count(pool, "SELECT count(*) FROM messages WHERE claim_id = $1", second));

        UUID late = UUID.randomUUID();
        List<Optional<List<Message>>> nothingLeft = claims.create(
                        pool,
                        List.of(
                                new ClaimStore.Request(claimed, late, 5, new ClaimTerms(60, 60)),
                                new ClaimStore.Request(claimed, UUID.randomUUID(), 5, new ClaimTerms(60, 60))),
                        1209600)
                .await()
                .indefinitely()
                .answers();
        assertEquals(List.of(Optional.of(List.of()), Optional.of(List.of())), nothingLeft);
        assertEquals(
                0, Db.count(pool, "SELECT count(*) FROM claims WHERE id = $1", late), "a claim of nothing is not kept");

        PlacedQueue missing = queue(project, "missing");
        List<Optional<List<Message>>> noQueue = claims.create(
                        pool,
                        List.of(
                                new ClaimStore.Request(missing, UUID.randomUUID(), 5, new ClaimTerms(60, 60)),
                                new ClaimStore.Request(missing, UUID.randomUUID(), 5, new ClaimTerms(60, 60))),
                        1209600)
                .await()
                .indefinitely()
                .answers();
        assertEquals(List.of(Optional.empty(), Optional.empty()), noQueue);
    }

    @Test
    void deletesSharingAStatementEachCountWhatTheyDeleted() {
        String project = Api.newProject();
        String document = IntStream.range(0, 4)
                .mapToObj(i -> "{\"ttl\": 3600, \"body\": " + i + "}")
                .collect(Collectors.joining(",", "{\"messages\": [", "]}"));
        List<String> hrefs = Api.as(project)
                .contentType(ContentType.JSON)
                .body(document)
                .post("/v2/queues/deleted/messages")
                .then()
                .statusCode(201)
                .extract()
                .jsonPath()
                .getList("resources");
        long[] ids = hrefs.stream().mapToLong(Messages::rowId).toArray();

        PlacedQueue deleted = queue(project, "deleted");
        List<Integer> counts = messages.deleteByIds(
                        pool,
                        List.of(
                                new MessageStore.IdsInQueue(deleted, new long[] {ids[0], ids[1]}),
                                new MessageStore.IdsInQueue(deleted, new long[] {ids[1], ids[2]}),
                                new MessageStore.IdsInQueue(deleted, new long[] {ids[3] + 1000})))
                .await()
                .indefinitely();

        assertEquals(List.of(2, 1, 0), counts, "a message named twice counts for the first");
        Api.as(project).get("/v2/queues/deleted/stats").then().body("messages.total", equalTo(1));
        Api.as(project)
                .get("/v2/queues/deleted/messages/" + Messages.id(hrefs.get(3)))
                .then()
                .statusCode(200)
                .body("body", equalTo(3));
    }

    @Test
    void deletesSharingAStatementAcrossQueuesAndProjectsDeleteOnlyInTheirOwnQueue() {
        String project = Api.newProject();
        String other = Api.newProject();
        long[] first = postThree(project, "first");
        long[] second = postThree(project, "second");
        long[] othersFirst = postThree(other, "first");
        long[] all = LongStream.concat(
                        LongStream.concat(LongStream.of(first), LongStream.of(second)), LongStream.of(othersFirst))
                .toArray();

        // Each request names every row of the three queues: only its own queue's rows go, and the other project's
        // queue of the same name loses only what its own request named.
        List<Integer> counts = messages.deleteByIds(
                        pool,
                        List.of(
                                new MessageStore.IdsInQueue(queue(project, "first"), all),
                                new MessageStore.IdsInQueue(queue(project, "second"), new long[] {second[1]}),
                                new MessageStore.IdsInQueue(queue(project, "missing"), all),
                                new MessageStore.IdsInQueue(queue(other, "first"), new long[] {othersFirst[2]}),
                                new MessageStore.IdsInQueue(
                                        queue(project, "second"), new long[] {second[1], second[2]})))
                .await()
                .indefinitely();

        assertEquals(List.of(3, 1, 0, 1, 1), counts);
        Api.as(project).get("/v2/queues/first/stats").then().body("messages.total", equalTo(0));
        Api.as(project).get("/v2/queues/second/stats").then().body("messages.total", equalTo(1));
        Api.as(other).get("/v2/queues/first/stats").then().body("messages.total", equalTo(2));
    }

    /** Posts three messages to the project's queue; their row ids. */
    private static long[] postThree(String project, String queue) {
        return Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"messages\": [{\"body\": 1}, {\"body\": 2}, {\"body\": 3}]}")
                .post("/v2/queues/" + queue + "/messages")
                .then()
                .statusCode(201)
                .extract()
                .jsonPath()
                .getList("resources", String.class)
                .stream()
                .mapToLong(Messages::rowId)
                .toArray();
    }

    private static void createQueue(String project, String name, String metadata) {
        Api.as(project)
                .contentType(ContentType.JSON)
                .body(metadata)
                .put("/v2/queues/" + name)
                .then()
                .statusCode(201);
    }

    /** "queue:count" for each queue of the project holding messages, by name. */
    private List<String> messagesPerQueue(String project) {
        List<String> counts = new ArrayList<>();
        for (Row row : Db.run(
                pool,
                "SELECT q.name, count(*) AS messages FROM messages m JOIN queues q ON q.id = m.queue_id "
                        + "WHERE q.project = $1 GROUP BY q.name ORDER BY q.name",
                project)) {
            counts.add(row.getString("name") + ":" + row.getLong("messages"));
        }
        return counts;
    }

    private static Long[] boxed(long[] ids) {
        return Arrays.stream(ids).boxed().toArray(Long[]::new);
    }

    /** The queue's handle on the configured database (the tests' queues are never placed on a pool). */
    private PlacedQueue queue(String project, String name) {
        return new PlacedQueue(pool, project, QueueName.of(name));
    }

    private static MessageStore.NewPost post(PlacedQueue queue, UUID client, String tag, int count, int documentSize) {
        List<NewMessage> bodies = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            bodies.add(new NewMessage(3600, null, body(tag, i)));
        }
        return new MessageStore.NewPost(queue, null, client, bodies, documentSize);
    }

    private static String body(String tag, int index) {
        return "{\"post\": \"" + tag + "\", \"i\": " + index + "}";
    }

    private void assertStored(String project, long[] ids, String tag, UUID client) {
        assertStored(project, ids, tag, client, "shared");
    }

    private void assertStored(String project, long[] ids, String tag, UUID client, String queue) {
        for (int i = 0; i < ids.length; i++) {
            Row row = Db.run(
                            pool,
                            "SELECT m.body, m.client_id FROM messages m JOIN queues q ON q.id = m.queue_id "
                                    + "WHERE q.project = $1 AND q.name = $2 AND m.id = $3",
                            project,
                            queue,
                            ids[i])
                    .iterator()
                    .next();
            assertEquals(body(tag, i), row.getString("body"), "message " + i + " of post " + tag);
            assertEquals(client, row.getUUID("client_id"));
        }
    }

    private static List<String> bodies(Optional<List<Message>> claimed) {
        return claimed.orElseThrow().stream().map(Message::body).toList();
    }

    private static void assertClaim(String project, UUID claim, int ttl, int count, String oldestBody) {
        Api.as(project)
                .get("/v2/queues/claimed/claims/" + claim)
                .then()
                .statusCode(200)
                .body("ttl", equalTo(ttl))
                .body("messages.size()", equalTo(count))
                .body("messages[0].body", equalTo(Integer.valueOf(oldestBody)));
    }
}
