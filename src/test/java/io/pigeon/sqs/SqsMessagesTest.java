package io.pigeon.sqs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.claim.ClaimService;
import io.pigeon.claim.ClaimTerms;
import io.pigeon.maintenance.Sweeper;
import io.pigeon.message.Message;
import io.pigeon.message.MessageIds;
import io.pigeon.queue.QueueName;
import io.pigeon.testing.Api;
import io.pigeon.testing.Db;
import io.pigeon.testing.Eventually;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.sqs.internal.MessageMD5ChecksumInterceptor;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.ReceiveMessageResponse;
import software.amazon.awssdk.services.sqs.model.SendMessageRequest;
import software.amazon.awssdk.services.sqs.model.SendMessageResponse;

/**
 * SQS's message operations against the real database, on the rows Zaqar reads: a message sent through SQS is claimed
 * through Zaqar's claim service and one posted through Zaqar is received through SQS, with the same body; attributes
 * and their digests survive storage, sealing and dead-lettering; receipt handles work only on their own queue and
 * project, and an old one behaves as SQS's; a waiting receive is woken by a send; a visibility change moves one
 * message's deadline and 0 frees it for either API.
 */
@QuarkusTest
class SqsMessagesTest {

    private static final UUID SENDER = UUID.fromString("7d1a8c52-0a2b-4b1c-9f3e-2c0a4d5e6f70");
    private static final List<String> ALL = List.of("All");

    @Inject
    SqsMessages sqs;

    @Inject
    SqsReceipts receipts;

    @Inject
    ClaimService claims;

    @Inject
    Sweeper sweeper;

    @Inject
    Pool pool;

    /** The SDK's own check of a SendMessage answer against its request: it throws on any digest that differs. */
    private static void sdkAcceptsTheSend(OutgoingMessage message, SentMessage sent) throws Exception {
        Map<String, MessageAttributeValue> attributes = new HashMap<>();
        if (message.attributes() != null) {
            message.attributes().forEach((name, value) -> attributes.put(name, sdkValue(value)));
        }
        Method check = MessageMD5ChecksumInterceptor.class.getDeclaredMethod(
                "sendMessageOperationMd5Check", SendMessageRequest.class, SendMessageResponse.class);
        check.setAccessible(true);
        check.invoke(
                null,
                SendMessageRequest.builder()
                        .messageBody(message.body())
                        .messageAttributes(attributes)
                        .build(),
                SendMessageResponse.builder()
                        .messageId(sent.messageId())
                        .md5OfMessageBody(sent.md5OfMessageBody())
                        .md5OfMessageAttributes(sent.md5OfMessageAttributes())
                        .build());
    }

    /** The SDK's own check of a ReceiveMessage answer: it throws on any digest that differs from its contents. */
    private static void sdkAcceptsTheReceive(List<ReceivedMessage> received) throws Exception {
        List<software.amazon.awssdk.services.sqs.model.Message> messages = new ArrayList<>();
        for (ReceivedMessage message : received) {
            Map<String, MessageAttributeValue> attributes = new HashMap<>();
            message.messageAttributes().byName().forEach((name, value) -> attributes.put(name, sdkValue(value)));
            messages.add(software.amazon.awssdk.services.sqs.model.Message.builder()
                    .messageId(message.messageId())
                    .receiptHandle(message.receiptHandle())
                    .body(message.body())
                    .md5OfBody(message.md5OfBody())
                    .messageAttributes(attributes)
                    .md5OfMessageAttributes(message.md5OfMessageAttributes())
                    .build());
        }
        Method check = MessageMD5ChecksumInterceptor.class.getDeclaredMethod(
                "receiveMessageResultMd5Check", ReceiveMessageResponse.class);
        check.setAccessible(true);
        check.invoke(null, ReceiveMessageResponse.builder().messages(messages).build());
    }

    private static MessageAttributeValue sdkValue(AttributeValue value) {
        MessageAttributeValue.Builder builder = MessageAttributeValue.builder().dataType(value.dataType());
        return value.isBinary()
                ? builder.binaryValue(SdkBytes.fromByteArray(value.binaryValue()))
                        .build()
                : builder.stringValue(value.stringValue()).build();
    }

    private static QueueName queueOf(String project, String name) {
        return queueOf(project, name, "{}");
    }

    private static QueueName queueOf(String project, String name, String metadata) {
        Api.as(project)
                .contentType(ContentType.JSON)
                .body(metadata)
                .put("/v2/queues/" + name)
                .then()
                .statusCode(201);
        return new QueueName(name);
    }

    private List<ReceivedMessage> receive(String project, QueueName queue, ReceiveRequest request) {
        return sqs.receive(project, queue, request, () -> true).await().atMost(Duration.ofSeconds(60));
    }

    private static ReceiveRequest receiving(int max, int visibility, List<String> system, List<String> attributes) {
        return new ReceiveRequest(max, visibility, 0, system, attributes);
    }

    private static Map<String, AttributeValue> someAttributes() {
        return Map.of(
                "text", AttributeValue.string("String", "grüße 日本 \uD83D\uDE00"),
                "price", AttributeValue.string("Number.float", "12.50"),
                "blob", AttributeValue.binary("Binary.raw", new byte[] {0, (byte) 0xff, 7}),
                "order.id", AttributeValue.string("String", "o-1"));
    }

    @Test
    void sentThroughSqsClaimedThroughZaqarAndTheOtherWayRound() throws Exception {
        String project = Api.newProject();
        QueueName queue = queueOf(project, "cross");
        SentMessage sent = sqs.send(project, queue, SENDER, OutgoingMessage.of("{\"not\": \"parsed\"} ü"))
                .await()
                .indefinitely();
        assertEquals(MessageDigests.ofBody("{\"not\": \"parsed\"} ü"), sent.md5OfMessageBody());
        assertNull(sent.md5OfMessageAttributes());

        Optional<ClaimService.NewClaim> claim =
                claims.take(project, queue, 10, new ClaimTerms(60, 60)).await().indefinitely();
        List<Message> taken = claim.orElseThrow().messages();
        assertEquals(1, taken.size());
        assertEquals(sent.messageId(), MessageIds.format(taken.get(0).id()));
        assertEquals("\"{\\\"not\\\": \\\"parsed\\\"} ü\"", taken.get(0).body());
        // Zaqar's answer is Zaqar's: the SQS-only column is never shown there.
        String document = Api.as(project)
                .get("/v2/queues/cross/messages/" + sent.messageId())
                .then()
                .statusCode(200)
                .extract()
                .asString();
        assertFalse(document.contains("sqs") || document.contains("attributes"), document);

        String posted = Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"messages\": [{\"body\": {\"event\": \"made\", \"n\": [1, 2.50]}, \"ttl\": 300},"
                        + " {\"body\": \"plain text\", \"ttl\": 300}]}")
                .post("/v2/queues/cross/messages")
                .then()
                .statusCode(201)
                .extract()
                .jsonPath()
                .getString("resources[0]");
        List<ReceivedMessage> received = receive(project, queue, receiving(10, 30, ALL, ALL));
        assertEquals(2, received.size());
        sdkAcceptsTheReceive(received);
        ReceivedMessage object = received.get(0);
        assertTrue(posted.endsWith(object.messageId()), posted);
        assertEquals("{\"event\":\"made\",\"n\":[1,2.50]}", object.body());
        assertEquals(MessageDigests.ofBody(object.body()), object.md5OfBody());
        assertEquals("plain text", received.get(1).body());
        assertEquals("1", object.attributes().get("ApproximateReceiveCount"));
        assertEquals(Api.CLIENT_ID, object.attributes().get("SenderId"));
        assertTrue(object.messageAttributes().isEmpty());
        assertNull(object.md5OfMessageAttributes());
        long sentAt = Long.parseLong(object.attributes().get("SentTimestamp"));
        long firstReceived = Long.parseLong(object.attributes().get("ApproximateFirstReceiveTimestamp"));
        assertTrue(firstReceived >= sentAt, sentAt + " then " + firstReceived);
    }

    @Test
    void attributesAndTheirDigestsSurviveStorageAndAreReturnedAsAsked() throws Exception {
        String project = Api.newProject();
        QueueName queue = queueOf(project, "attributes");
        Map<String, AttributeValue> attributes = someAttributes();
        Map<String, AttributeValue> trace =
                Map.of("AWSTraceHeader", AttributeValue.string("String", "Root=1-5759e988-bd862e3fe1be46a994272793"));
        OutgoingMessage outgoing = new OutgoingMessage("body ü \uD83D\uDE00", attributes, trace, null);
        SentMessage sent = sqs.send(project, queue, SENDER, outgoing).await().indefinitely();
        sdkAcceptsTheSend(outgoing, sent);
        assertEquals(MessageDigests.ofAttributes(MessageAttributes.of(attributes)), sent.md5OfMessageAttributes());
        assertEquals(
                MessageDigests.ofAttributes(MessageAttributes.systemAttributes(trace)),
                sent.md5OfMessageSystemAttributes());

        List<ReceivedMessage> all = receive(project, queue, receiving(1, 0, ALL, ALL));
        sdkAcceptsTheReceive(all);
        // The SDK's check is real: one digest off and it refuses the answer.
        ReceivedMessage first = all.get(0);
        ReceivedMessage altered = new ReceivedMessage(
                first.messageId(),
                first.receiptHandle(),
                first.body(),
                first.md5OfBody(),
                first.attributes(),
                first.messageAttributes(),
                MessageDigests.ofBody("not the attributes"));
        assertThrows(InvocationTargetException.class, () -> sdkAcceptsTheReceive(List.of(altered)));
        assertEquals(MessageAttributes.of(attributes), all.get(0).messageAttributes());
        assertEquals(sent.md5OfMessageAttributes(), all.get(0).md5OfMessageAttributes());
        assertEquals(
                "Root=1-5759e988-bd862e3fe1be46a994272793",
                all.get(0).attributes().get("AWSTraceHeader"));
        assertEquals(SENDER.toString(), all.get(0).attributes().get("SenderId"));

        // Only those asked for, and the digest of those returned.
        List<ReceivedMessage> some =
                receive(project, queue, receiving(1, 0, List.of("ApproximateReceiveCount"), List.of("order.*")));
        sdkAcceptsTheReceive(some);
        assertEquals(
                List.of("order.id"),
                List.copyOf(some.get(0).messageAttributes().byName().keySet()));
        assertEquals(
                MessageDigests.ofAttributes(
                        MessageAttributes.of(Map.of("order.id", AttributeValue.string("String", "o-1")))),
                some.get(0).md5OfMessageAttributes());
        assertEquals(Map.of("ApproximateReceiveCount", "2"), some.get(0).attributes());

        List<ReceivedMessage> none = receive(project, queue, receiving(1, 0, List.of(), List.of()));
        assertTrue(none.get(0).messageAttributes().isEmpty());
        assertTrue(none.get(0).attributes().isEmpty());
    }

    @Test
    void anEncryptingQueueSealsTheAttributesWithTheBody() {
        String project = Api.newProject();
        QueueName queue = queueOf(project, "sealed", "{\"_enable_encrypt_messages\": true}");
        sqs.send(project, queue, SENDER, new OutgoingMessage("secret body", someAttributes(), null, null))
                .await()
                .indefinitely();
        String stored = Db.run(
                        pool,
                        "SELECT m.sqs_attributes, m.body FROM messages m JOIN queues q ON q.id = m.queue_id"
                                + " WHERE q.project = $1 AND q.name = 'sealed'",
                        project)
                .iterator()
                .next()
                .getString(0);
        assertTrue(stored.startsWith("2:sealed:"), stored);
        assertFalse(stored.contains("o-1"), stored);
        List<ReceivedMessage> received = receive(project, queue, receiving(1, 30, ALL, ALL));
        assertEquals("secret body", received.get(0).body());
        assertEquals(MessageAttributes.of(someAttributes()), received.get(0).messageAttributes());
    }

    @Test
    void deadLetteringKeepsTheAttributes() {
        String project = Api.newProject();
        QueueName queue = queueOf(
                project,
                "source",
                "{\"_max_claim_count\": 1, \"_dead_letter_queue\": \"dead\", \"_enable_encrypt_messages\": true}");
        sqs.send(project, queue, SENDER, new OutgoingMessage("doomed", someAttributes(), null, null))
                .await()
                .indefinitely();
        // Received once and never deleted: its claim ends at once and the sweeper moves it.
        assertEquals(
                1,
                receive(project, queue, receiving(1, 0, List.of(), List.of())).size());
        QueueName dead = new QueueName("dead");
        Eventually.await("the message is dead-lettered and resealed", Duration.ofSeconds(60), () -> {
            sweeper.sweep().await().indefinitely();
            return Db.count(
                            pool,
                            "SELECT count(*) FROM messages m JOIN queues q ON q.id = m.queue_id"
                                    + " WHERE q.project = $1 AND q.name = 'dead' AND m.visible_at IS NULL",
                            project)
                    == 1;
        });
        List<ReceivedMessage> received = receive(project, dead, receiving(1, 30, ALL, ALL));
        assertEquals("doomed", received.get(0).body());
        assertEquals(MessageAttributes.of(someAttributes()), received.get(0).messageAttributes());
    }

    @Test
    void aHandleWorksOnlyOnItsOwnQueueAndProjectUnchanged() {
        String project = Api.newProject();
        String other = Api.newProject();
        QueueName queue = queueOf(project, "handles");
        queueOf(other, "handles");
        QueueName neighbour = queueOf(project, "neighbour");
        sqs.send(project, queue, SENDER, OutgoingMessage.of("keep me")).await().indefinitely();
        String handle = receive(project, queue, receiving(1, 600, List.of(), List.of()))
                .get(0)
                .receiptHandle();

        for (Runnable misuse : List.<Runnable>of(
                () -> receipts.delete(other, queue, handle).await().indefinitely(),
                () -> receipts.delete(project, neighbour, handle).await().indefinitely(),
                // A character within the MAC (the last one may carry bits the decoder ignores).
                () -> receipts.delete(
                                project,
                                queue,
                                handle.substring(0, 50) + (handle.charAt(50) == 'A' ? "B" : "A") + handle.substring(51))
                        .await()
                        .indefinitely(),
                () -> receipts.changeVisibility(other, queue, handle, 0).await().indefinitely())) {
            SqsRefusal refusal = assertThrows(SqsRefusal.class, misuse::run);
            assertEquals(SqsRefusal.Reason.RECEIPT_HANDLE_IS_INVALID, refusal.reason());
        }
        assertEquals(
                1,
                Db.count(
                        pool,
                        "SELECT count(*) FROM messages m JOIN queues q ON q.id = m.queue_id"
                                + " WHERE q.project = $1 AND q.name = 'handles'",
                        project));

        List<EntryOutcome<Boolean>> batch = receipts.deleteBatch(
                        project, queue, List.of(new BatchEntry<>("good", handle), new BatchEntry<>("bad", "forged")))
                .await()
                .indefinitely();
        assertTrue(batch.get(0).successful());
        assertEquals(
                SqsRefusal.Reason.RECEIPT_HANDLE_IS_INVALID,
                batch.get(1).failure().reason());
        assertEquals(
                0,
                Db.count(
                        pool,
                        "SELECT count(*) FROM messages m JOIN queues q ON q.id = m.queue_id"
                                + " WHERE q.project = $1 AND q.name = 'handles'",
                        project));
    }

    @Test
    void anOldHandleDeletesNothingAndChangesNothing() {
        String project = Api.newProject();
        QueueName queue = queueOf(project, "stale");
        sqs.send(project, queue, SENDER, OutgoingMessage.of("twice")).await().indefinitely();
        String first = receive(project, queue, receiving(1, 0, List.of(), List.of()))
                .get(0)
                .receiptHandle();
        // Received again (its visibility was 0): the first handle is no longer the latest.
        ReceivedMessage again =
                receive(project, queue, receiving(1, 600, ALL, List.of())).get(0);
        assertEquals("2", again.attributes().get("ApproximateReceiveCount"));
        assertNotEquals(first, again.receiptHandle());

        receipts.delete(project, queue, first).await().indefinitely();
        assertEquals(
                1,
                Db.count(
                        pool,
                        "SELECT count(*) FROM messages m JOIN queues q ON q.id = m.queue_id"
                                + " WHERE q.project = $1 AND q.name = 'stale'",
                        project));
        SqsRefusal notInFlight =
                assertThrows(SqsRefusal.class, () -> receipts.changeVisibility(project, queue, first, 60)
                        .await()
                        .indefinitely());
        assertEquals(SqsRefusal.Reason.MESSAGE_NOT_INFLIGHT, notInFlight.reason());

        receipts.delete(project, queue, again.receiptHandle()).await().indefinitely();
        assertEquals(
                0,
                Db.count(
                        pool,
                        "SELECT count(*) FROM messages m JOIN queues q ON q.id = m.queue_id"
                                + " WHERE q.project = $1 AND q.name = 'stale'",
                        project));
        SqsRefusal gone = assertThrows(
                SqsRefusal.class, () -> receipts.changeVisibility(project, queue, again.receiptHandle(), 60)
                        .await()
                        .indefinitely());
        assertEquals(SqsRefusal.Reason.INVALID_PARAMETER_VALUE, gone.reason());
    }

    @Test
    void aHandleWhoseVisibilityEndedStillDeletesWhileNoOneReceivedItAgain() {
        String project = Api.newProject();
        QueueName queue = queueOf(project, "late");
        sqs.send(project, queue, SENDER, OutgoingMessage.of("late")).await().indefinitely();
        String handle = receive(project, queue, receiving(1, 0, List.of(), List.of()))
                .get(0)
                .receiptHandle();
        sweeper.sweep().await().indefinitely(); // the ended claim is settled: the row holds no claim any more
        receipts.delete(project, queue, handle).await().indefinitely();
        assertEquals(
                0,
                Db.count(
                        pool,
                        "SELECT count(*) FROM messages m JOIN queues q ON q.id = m.queue_id"
                                + " WHERE q.project = $1 AND q.name = 'late'",
                        project));
    }

    @Test
    void aVisibilityChangeMovesOneMessagesDeadlineAndZeroFreesIt() {
        String project = Api.newProject();
        QueueName queue = queueOf(project, "visibility");
        sqs.sendBatch(
                        project,
                        queue,
                        SENDER,
                        List.of(
                                new BatchEntry<>("a", OutgoingMessage.of("first")),
                                new BatchEntry<>("b", OutgoingMessage.of("second"))))
                .await()
                .indefinitely();
        List<ReceivedMessage> received = receive(project, queue, receiving(2, 60, List.of(), List.of()));
        assertEquals(2, received.size());

        receipts.changeVisibility(project, queue, received.get(0).receiptHandle(), 7200)
                .await()
                .indefinitely();
        String deadlines = "SELECT m.id FROM messages m JOIN queues q ON q.id = m.queue_id"
                + " WHERE q.project = $1 AND q.name = 'visibility'"
                + " AND m.claim_expires_at > now() + interval '7000 seconds'";
        assertEquals(1, Db.run(pool, deadlines, project).size());
        // The claim row lives as long as its latest message, so the sweeper cannot settle that one early.
        assertEquals(
                1,
                Db.count(
                        pool,
                        "SELECT count(*) FROM claims c JOIN queues q ON q.id = c.queue_id"
                                + " WHERE q.project = $1 AND c.expires_at > now() + interval '7000 seconds'",
                        project));

        receipts.changeVisibility(project, queue, received.get(1).receiptHandle(), 0)
                .await()
                .indefinitely();
        Optional<ClaimService.NewClaim> zaqar =
                claims.take(project, queue, 10, new ClaimTerms(60, 60)).await().indefinitely();
        List<Message> freed = zaqar.orElseThrow().messages();
        assertEquals(1, freed.size());
        assertEquals("\"second\"", freed.get(0).body());

        SqsRefusal tooLong = assertThrows(SqsRefusal.class, () -> receipts.changeVisibility(
                        project, queue, received.get(0).receiptHandle(), 43_201)
                .await()
                .indefinitely());
        assertEquals(SqsRefusal.Reason.INVALID_PARAMETER_VALUE, tooLong.reason());
    }

    @Test
    void aWaitingReceiveIsWokenByASend() throws Exception {
        String project = Api.newProject();
        QueueName queue = queueOf(project, "waiting");
        CompletableFuture<List<ReceivedMessage>> waiting = sqs.receive(
                        project, queue, new ReceiveRequest(1, 30, 20, List.of(), List.of()), () -> true)
                .subscribeAsCompletionStage();
        Eventually.pause(Duration.ofMillis(300));
        sqs.send(project, queue, SENDER, OutgoingMessage.of("wake up")).await().indefinitely();
        List<ReceivedMessage> received = waiting.get(60, TimeUnit.SECONDS);
        assertEquals(1, received.size());
        assertEquals("wake up", received.get(0).body());
    }

    @Test
    void batchesAnswerPerEntryAndBadRequestsChangeNothing() {
        String project = Api.newProject();
        QueueName queue = queueOf(project, "batch", "{\"_max_messages_post_size\": 1024}");
        List<EntryOutcome<SentMessage>> outcomes = sqs.sendBatch(
                        project,
                        queue,
                        SENDER,
                        List.of(
                                new BatchEntry<>("ok", OutgoingMessage.of("fine")),
                                new BatchEntry<>("bad-body", OutgoingMessage.of("nul \u0000")),
                                new BatchEntry<>("too-big", OutgoingMessage.of("x".repeat(2000))),
                                new BatchEntry<>("late", new OutgoingMessage("delayed", null, null, 901))))
                .await()
                .indefinitely();
        assertTrue(outcomes.get(0).successful());
        assertEquals(
                SqsRefusal.Reason.INVALID_MESSAGE_CONTENTS,
                outcomes.get(1).failure().reason());
        assertEquals(
                SqsRefusal.Reason.INVALID_PARAMETER_VALUE,
                outcomes.get(2).failure().reason());
        assertEquals(
                SqsRefusal.Reason.INVALID_PARAMETER_VALUE,
                outcomes.get(3).failure().reason());
        assertEquals(
                1,
                Db.count(
                        pool,
                        "SELECT count(*) FROM messages m JOIN queues q ON q.id = m.queue_id"
                                + " WHERE q.project = $1 AND q.name = 'batch'",
                        project));

        List<BatchEntry<OutgoingMessage>> eleven = new ArrayList<>();
        for (int i = 0; i < 11; i++) {
            eleven.add(new BatchEntry<>("e" + i, OutgoingMessage.of("m")));
        }
        assertEquals(
                SqsRefusal.Reason.TOO_MANY_ENTRIES_IN_BATCH_REQUEST,
                assertThrows(SqsRefusal.class, () -> sqs.sendBatch(project, queue, SENDER, eleven))
                        .reason());
        assertEquals(
                SqsRefusal.Reason.BATCH_ENTRY_IDS_NOT_DISTINCT,
                assertThrows(
                                SqsRefusal.class,
                                () -> sqs.sendBatch(
                                        project,
                                        queue,
                                        SENDER,
                                        List.of(
                                                new BatchEntry<>("same", OutgoingMessage.of("a")),
                                                new BatchEntry<>("same", OutgoingMessage.of("b")))))
                        .reason());
        SqsRefusal missing = assertThrows(
                SqsRefusal.class, () -> sqs.send(project, new QueueName("missing"), SENDER, OutgoingMessage.of("x"))
                        .await()
                        .indefinitely());
        assertEquals(SqsRefusal.Reason.QUEUE_DOES_NOT_EXIST, missing.reason());
        assertEquals(
                SqsRefusal.Reason.QUEUE_DOES_NOT_EXIST,
                assertThrows(SqsRefusal.class, () -> receive(project, new QueueName("missing"), ReceiveRequest.one()))
                        .reason());
        assertEquals(
                SqsRefusal.Reason.INVALID_PARAMETER_VALUE,
                assertThrows(SqsRefusal.class, () -> receive(project, queue, receiving(11, 30, List.of(), List.of())))
                        .reason());
        assertEquals(
                1,
                Db.count(
                        pool,
                        "SELECT count(*) FROM messages m JOIN queues q ON q.id = m.queue_id"
                                + " WHERE q.project = $1 AND q.name = 'batch'",
                        project));
    }
}
