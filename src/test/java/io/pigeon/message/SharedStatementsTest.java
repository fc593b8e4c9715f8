package io.pigeon.message;

import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
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
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
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

        List<Optional<List<Message>>> taken = claims.create(
                        queue(project, "claimed"),
                        List.of(
                                new ClaimStore.Request(first, 2, new ClaimTerms(60, 60)),
                                new ClaimStore.Request(second, 3, new ClaimTerms(120, 70)),
                                new ClaimStore.Request(third, 10, new ClaimTerms(90, 80))),
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
                        queue(project, "claimed"),
                        List.of(
                                new ClaimStore.Request(late, 5, new ClaimTerms(60, 60)),
                                new ClaimStore.Request(UUID.randomUUID(), 5, new ClaimTerms(60, 60))),
                        1209600)
                .await()
                .indefinitely()
                .answers();
        assertEquals(List.of(Optional.of(List.of()), Optional.of(List.of())), nothingLeft);
        assertEquals(
                0, Db.count(pool, "SELECT count(*) FROM claims WHERE id = $1", late), "a claim of nothing is not kept");

        List<Optional<List<Message>>> noQueue = claims.create(
                        queue(project, "missing"),
                        List.of(
                                new ClaimStore.Request(UUID.randomUUID(), 5, new ClaimTerms(60, 60)),
                                new ClaimStore.Request(UUID.randomUUID(), 5, new ClaimTerms(60, 60))),
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

        List<Integer> counts = messages.deleteByIds(
                        queue(project, "deleted"),
                        List.of(new long[] {ids[0], ids[1]}, new long[] {ids[1], ids[2]}, new long[] {ids[3] + 1000}))
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
