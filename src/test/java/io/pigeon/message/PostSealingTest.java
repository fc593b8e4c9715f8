package io.pigeon.message;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pigeon.encryption.MessageCipher;
import io.pigeon.pool.QueueDatabases;
import io.pigeon.queue.PlacedQueue;
import io.pigeon.queue.QueueName;
import io.pigeon.rules.Rejection;
import io.pigeon.testing.Api;
import io.pigeon.testing.Db;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * A post to a queue whose encryption setting changes while it is stored: PostSealing tries the other way once when the
 * statement refuses; a setting that changed again before that second try must be answered as a refusal the client may
 * retry (503, nothing stored), never as Pigeon's own failure (found by an outside attack: flipping
 * {@code _enable_encrypt_messages} every 50 ms while 16 clients posted made a quarter of the posts answer 500).
 */
@QuarkusTest
class PostSealingTest {

    private static final UUID POSTER = UUID.fromString("5f0e2d1c-8b7a-4c3d-9e1f-0a2b3c4d5e6f");

    @Inject
    MessageCipher cipher;

    @Inject
    MessageService posts;

    @Inject
    QueueDatabases databases;

    @Inject
    Pool pool;

    @Test
    void aSettingThatChangesBeforeEachTryIsAnsweredUnavailableAndStoresNothing() {
        String project = Api.newProject();
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{}")
                .put("/v2/queues/flipping")
                .then()
                .statusCode(201);
        PlacedQueue placed = PlacedQueue.of(databases, project, new QueueName("flipping"))
                .await()
                .atMost(Duration.ofSeconds(30));
        PostSealing sealing = new PostSealing(cipher);

        // Before each try, the queue is set to ask the other way than that try seals: both are refused by the store.
        Rejection rejection = assertThrows(Rejection.class, () -> sealing.sealedAsTheQueueAsks(
                        placed, List.of(new NewMessage(null, null, "\"body\"")), (toStore, keyId) -> askingTheOtherWay(
                                        project, keyId)
                                .chain(() -> posts.send(
                                        placed,
                                        keyId,
                                        POSTER,
                                        toStore,
                                        toStore.stream()
                                                .map(message -> (String) null)
                                                .toList(),
                                        8)))
                .await()
                .atMost(Duration.ofSeconds(60)));

        assertEquals(Rejection.Reason.UNAVAILABLE, rejection.reason());
        assertEquals(
                0,
                Db.count(
                        pool,
                        "SELECT count(*) FROM messages m JOIN queues q ON q.id = m.queue_id"
                                + " WHERE q.project = $1 AND q.name = 'flipping'",
                        project));
    }

    /** Sets the queue to ask for sealing when {@code keyId} is null (a post in clear), and not when it is set. */
    private Uni<Void> askingTheOtherWay(String project, String keyId) {
        return pool.preparedQuery(
                        "UPDATE queues SET metadata = jsonb_set(metadata::jsonb, '{_enable_encrypt_messages}',"
                                + " to_jsonb($2::boolean))::json WHERE project = $1 AND name = 'flipping'")
                .execute(Tuple.of(project, keyId == null))
                .replaceWithVoid();
    }
}
