package io.pigeon.sqs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pigeon.encryption.MessageCipher;
import io.pigeon.message.MessageService;
import io.pigeon.message.NewMessage;
import io.pigeon.pool.QueueDatabases;
import io.pigeon.queue.PlacedQueue;
import io.pigeon.queue.QueueName;
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
 * A send to a queue whose encryption setting changes while it is stored: SqsSealing tries the other way once when the
 * statement refuses; a setting that changed again before that second try must be answered as something the client
 * may retry (nothing was stored), never as Pigeon's own failure (found by an outside attack: a client flipping
 * {@code _enable_encrypt_messages} while another sends made SendMessage answer 500 InternalFailure).
 */
@QuarkusTest
class SqsSealingTest {

    private static final UUID SENDER = UUID.fromString("0b5e8f0e-4c3a-4f7e-9d2b-6a1c3e5f7a90");

    @Inject
    MessageCipher cipher;

    @Inject
    MessageService posts;

    @Inject
    QueueDatabases databases;

    @Inject
    Pool pool;

    @Test
    void aSettingThatChangesBeforeEachTryIsAnsweredRetryableAndStoresNothing() {
        String project = Api.newProject();
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{}")
                .put("/v2/queues/flipping")
                .then()
                .statusCode(201);
        QueueName queue = new QueueName("flipping");
        PlacedQueue placed = PlacedQueue.of(databases, project, queue).await().atMost(Duration.ofSeconds(30));
        SqsSealing sealing = new SqsSealing(cipher);
        List<SqsMessageStore.Outgoing> messages = List.of(new SqsMessageStore.Outgoing(null, "\"body\"", null));

        // Before each try, the queue is set to ask the other way than that try seals: both are refused by the store.
        SqsRefusal refusal = assertThrows(SqsRefusal.class, () -> sealing.sealedAsTheQueueAsks(
                        placed, messages, (toStore, keyId) -> askingTheOtherWay(project, keyId)
                                .chain(() -> posts.send(
                                        placed,
                                        keyId,
                                        SENDER,
                                        toStore.stream()
                                                .map(message -> new NewMessage(null, null, message.body()))
                                                .toList(),
                                        toStore.stream()
                                                .map(SqsMessageStore.Outgoing::attributes)
                                                .toList(),
                                        8)))
                .await()
                .atMost(Duration.ofSeconds(60)));

        assertEquals(SqsRefusal.Reason.SERVICE_UNAVAILABLE, refusal.reason());
        assertEquals(
                0,
                Db.count(
                        pool,
                        "SELECT count(*) FROM messages m JOIN queues q ON q.id = m.queue_id"
                                + " WHERE q.project = $1 AND q.name = 'flipping'",
                        project));
    }

    /** Sets the queue to ask for sealing when {@code keyId} is null (a send in clear), and not when it is set. */
    private Uni<Void> askingTheOtherWay(String project, String keyId) {
        return pool.preparedQuery(
                        "UPDATE queues SET metadata = jsonb_set(metadata::jsonb, '{_enable_encrypt_messages}',"
                                + " to_jsonb($2::boolean))::json WHERE project = $1 AND name = 'flipping'")
                .execute(Tuple.of(project, keyId == null))
                .replaceWithVoid();
    }
}
