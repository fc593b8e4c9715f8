package io.pigeon.clients;

import static io.pigeon.clients.SqsJavaSdkQueueTest.assertAwsError;
import static io.pigeon.clients.SqsQueue.entry;
import static io.pigeon.clients.SqsQueue.md5;
import static io.pigeon.clients.SqsQueue.string;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.testing.Api;
import io.pigeon.testing.Eventually;
import io.pigeon.testing.Sqs;
import io.quarkus.test.junit.QuarkusTest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.BatchEntryIdsNotDistinctException;
import software.amazon.awssdk.services.sqs.model.BatchResultErrorEntry;
import software.amazon.awssdk.services.sqs.model.ChangeMessageVisibilityBatchResponse;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchResponse;
import software.amazon.awssdk.services.sqs.model.InvalidAttributeNameException;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeNameForSends;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeValue;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;
import software.amazon.awssdk.services.sqs.model.ReceiptHandleIsInvalidException;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchResponse;
import software.amazon.awssdk.services.sqs.model.SendMessageResponse;
import software.amazon.awssdk.services.sqs.model.SqsException;
import software.amazon.awssdk.services.sqs.model.TooManyEntriesInBatchRequestException;

/**
 * The message actions through the AWS SDK for Java v2 with its MD5 checks on (the SDK fails a call whose
 * MD5OfMessageBody or MD5OfMessageAttributes differs from its own): send with String, Number, Binary and custom
 * attributes, batches with good and bad entries, receive (long poll woken by a send, visibility timeout, count,
 * attribute names), delete, change visibility, purge, and the errors the SDK maps. Tagged {@value #MESSAGES}:
 * {@code -Dgroups=sqs-messages} runs the message scenarios alone.
 */
@QuarkusTest
@Tag(SqsJavaSdkMessageTest.MESSAGES)
class SqsJavaSdkMessageTest {

    /** The tag of the client tests that need SQS's message actions. */
    static final String MESSAGES = "sqs-messages";

    private final String project = Api.newProject();
    private SqsClient sqs;
    private String url;
    private SqsQueue queue;

    @BeforeEach
    void openClientAndQueue() {
        sqs = Sqs.clientFor(project);
        url = sqs.createQueue(b -> b.queueName("messages")).queueUrl();
        queue = new SqsQueue(sqs, url);
    }

    @AfterEach
    void closeClient() {
        sqs.close();
    }

    @Test
    void aMessageWithEveryKindOfAttributeComesBackAsSentWithItsDigests() {
        Map<String, MessageAttributeValue> attributes = new HashMap<>();
        attributes.put("kind", string("String", "invoice"));
        attributes.put("amount", string("Number", "42.50"));
        attributes.put(
                "thumbnail",
                MessageAttributeValue.builder()
                        .dataType("Binary")
                        .binaryValue(SdkBytes.fromByteArray(new byte[] {0, 1, 2, (byte) 250, (byte) 255}))
                        .build());
        attributes.put("schema", string("String.json", "{\"v\":1}"));
        attributes.put("ratio", string("Number.float", "0.25"));
        attributes.put(
                "icon",
                MessageAttributeValue.builder()
                        .dataType("Binary.png")
                        .binaryValue(SdkBytes.fromByteArray(new byte[] {(byte) 0x89, 'P', 'N', 'G'}))
                        .build());
        String body = "héllo 中 \uD83D\uDE00 <xml> & \"quotes\"";

        String trace = "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1";

        // The SDK compares each MD5 in the answer with its own and fails the call on a difference.
        SendMessageResponse sent = sqs.sendMessage(b -> b.queueUrl(url)
                .messageBody(body)
                .messageAttributes(attributes)
                .messageSystemAttributes(Map.of(
                        MessageSystemAttributeNameForSends.AWS_TRACE_HEADER,
                        MessageSystemAttributeValue.builder()
                                .dataType("String")
                                .stringValue(trace)
                                .build())));
        assertEquals(md5(body), sent.md5OfMessageBody());
        assertTrue(sent.md5OfMessageAttributes() != null
                && sent.md5OfMessageAttributes().length() == 32);
        assertTrue(sent.md5OfMessageSystemAttributes() != null
                && sent.md5OfMessageSystemAttributes().length() == 32);

        Message received = queue.receiveOne(
                b -> b.messageAttributeNames("All").messageSystemAttributeNames(MessageSystemAttributeName.ALL));
        assertEquals(sent.messageId(), received.messageId());
        assertEquals(body, received.body());
        assertEquals(md5(body), received.md5OfBody());
        assertEquals(attributes, received.messageAttributes());
        assertEquals(sent.md5OfMessageAttributes(), received.md5OfMessageAttributes());
        Map<String, String> system = received.attributesAsStrings();
        assertEquals("1", system.get("ApproximateReceiveCount"), system.toString());
        for (String stamp : List.of("SentTimestamp", "ApproximateFirstReceiveTimestamp")) {
            long millis = Long.parseLong(system.get(stamp)); // epoch milliseconds, as AWS writes them
            assertTrue(Math.abs(System.currentTimeMillis() - millis) < 3_600_000, stamp + " " + millis);
        }
        assertTrue(system.containsKey("SenderId"), system.toString());
        assertEquals(trace, system.get("AWSTraceHeader"), system.toString());
    }

    @Test
    void onlyTheAttributesAskedForAreReturned() {
        Map<String, MessageAttributeValue> attributes = Map.of(
                "trace.id", string("String", "t-1"),
                "trace.span", string("String", "s-2"),
                "colour", string("String", "blue"));
        sqs.sendMessage(b -> b.queueUrl(url).messageBody("filtered").messageAttributes(attributes));

        Message received = queue.receiveOne(b -> b.messageAttributeNames("colour", "trace.*"));
        assertEquals(attributes, received.messageAttributes());
        sqs.changeMessageVisibility(
                b -> b.queueUrl(url).receiptHandle(received.receiptHandle()).visibilityTimeout(0));

        Message again = queue.receiveOne(b -> b.messageAttributeNames("trace.*"));
        assertEquals(
                Map.of("trace.id", attributes.get("trace.id"), "trace.span", attributes.get("trace.span")),
                again.messageAttributes());
        sqs.changeMessageVisibility(
                b -> b.queueUrl(url).receiptHandle(again.receiptHandle()).visibilityTimeout(0));

        Message bare = queue.receiveOne(b -> b);
        assertTrue(bare.messageAttributes().isEmpty(), "none asked for, none given");
        assertTrue(bare.attributes().isEmpty(), "no system attributes asked for, none given");
        assertEquals(md5("filtered"), bare.md5OfBody());
    }

    @Test
    void aBatchAnswersPerEntry() {
        SendMessageBatchResponse sent = sqs.sendMessageBatch(b -> b.queueUrl(url)
                .entries(entry("a", "first", 0), entry("late", "delayed too long", 901), entry("b", "second", 0)));
        assertEquals(
                List.of("a", "b"),
                sent.successful().stream().map(e -> e.id()).sorted().toList());
        assertEquals(
                md5("first"),
                sent.successful().stream()
                        .filter(e -> e.id().equals("a"))
                        .findFirst()
                        .orElseThrow()
                        .md5OfMessageBody());
        assertEquals(1, sent.failed().size(), sent.toString());
        BatchResultErrorEntry failed = sent.failed().get(0);
        assertEquals("late", failed.id());
        assertTrue(failed.senderFault(), failed.toString());
        assertFalse(failed.code() == null || failed.code().isBlank(), failed.toString());

        List<Message> received = queue.receiveAll(2);
        assertEquals(
                List.of("first", "second"),
                received.stream().map(Message::body).sorted().toList());

        DeleteMessageBatchResponse deleted = sqs.deleteMessageBatch(b -> b.queueUrl(url)
                .entries(
                        e -> e.id("one").receiptHandle(received.get(0).receiptHandle()),
                        e -> e.id("forged").receiptHandle("not-a-receipt-handle"),
                        e -> e.id("two").receiptHandle(received.get(1).receiptHandle())));
        assertEquals(
                List.of("one", "two"),
                deleted.successful().stream().map(e -> e.id()).sorted().toList());
        assertEquals(1, deleted.failed().size(), deleted.toString());
        assertEquals("forged", deleted.failed().get(0).id());
        assertEquals("ReceiptHandleIsInvalid", deleted.failed().get(0).code());
        assertTrue(deleted.failed().get(0).senderFault());
        queue.assertCounts(0, 0);
    }

    @Test
    void batchRequestsOutsideTheRulesAreRefusedWhole() {
        assertAwsError(
                assertThrows(
                        BatchEntryIdsNotDistinctException.class,
                        () -> sqs.sendMessageBatch(
                                b -> b.queueUrl(url).entries(entry("x", "1", 0), entry("x", "2", 0)))),
                400,
                "AWS.SimpleQueueService.BatchEntryIdsNotDistinct");
        List<SendMessageBatchRequestEntry> eleven = new ArrayList<>();
        for (int i = 0; i < 11; i++) {
            eleven.add(entry("e" + i, "m" + i, 0));
        }
        assertAwsError(
                assertThrows(
                        TooManyEntriesInBatchRequestException.class,
                        () -> sqs.sendMessageBatch(b -> b.queueUrl(url).entries(eleven))),
                400,
                "AWS.SimpleQueueService.TooManyEntriesInBatchRequest");
        queue.assertCounts(0, 0);
    }

    @Test
    void aLongPollIsWokenByASend() throws Exception {
        CompletableFuture<List<Message>> waiting = CompletableFuture.supplyAsync(() ->
                sqs.receiveMessage(b -> b.queueUrl(url).waitTimeSeconds(20)).messages());
        Eventually.pause(Duration.ofMillis(500)); // lets the poll start waiting; the assertion does not depend on it
        try (SqsClient sender = Sqs.clientFor(project)) {
            sender.sendMessage(b -> b.queueUrl(url).messageBody("wake up"));
        }
        long started = System.nanoTime();
        List<Message> got = waiting.get(30, TimeUnit.SECONDS);
        assertEquals(List.of("wake up"), got.stream().map(Message::body).toList());
        // Woken, not timed out: the 20 s wait had far from run out (a semantic bound, not a speed goal).
        assertTrue(System.nanoTime() - started < TimeUnit.SECONDS.toNanos(15));
    }

    @Test
    void aReceivedMessageIsInvisibleForItsVisibilityTimeoutThenComesBack() {
        sqs.sendMessage(b -> b.queueUrl(url).messageBody("once more"));
        Message first = queue.receiveOne(b -> b.visibilityTimeout(1));
        Message second = queue.receiveOne(b -> b.visibilityTimeout(60)
                .messageSystemAttributeNames(MessageSystemAttributeName.APPROXIMATE_RECEIVE_COUNT));
        assertEquals(first.messageId(), second.messageId());
        assertFalse(first.receiptHandle().equals(second.receiptHandle()), "each receive has its own handle");
        assertEquals("2", second.attributesAsStrings().get("ApproximateReceiveCount"));
        assertEquals(List.of(), sqs.receiveMessage(b -> b.queueUrl(url)).messages(), "invisible for 60 s");
        queue.assertCounts(0, 1);
    }

    @Test
    void aReceiveThatNamesNoVisibilityTimeoutHidesForTheQueuesOwn() {
        String instant = sqs.createQueue(
                        b -> b.queueName("instant").attributesWithStrings(Map.of("VisibilityTimeout", "0")))
                .queueUrl();
        SqsQueue zero = new SqsQueue(sqs, instant);
        sqs.sendMessage(b -> b.queueUrl(instant).messageBody("at once again"));
        Message first = zero.receiveOne(b -> b);
        // The queue's 0 s, not SQS's default 30 s: the message is there for the next receive.
        Message second = zero.receiveOne(b -> b);
        assertEquals(first.messageId(), second.messageId());
        sqs.setQueueAttributes(b -> b.queueUrl(instant).attributesWithStrings(Map.of("VisibilityTimeout", "600")));
        zero.receiveOne(b -> b);
        assertEquals(List.of(), sqs.receiveMessage(b -> b.queueUrl(instant)).messages(), "hidden for 600 s");
        zero.assertCounts(0, 1);
    }

    @Test
    void maxNumberOfMessagesBoundsEachReceive() {
        sqs.sendMessageBatch(b -> b.queueUrl(url)
                .entries(
                        entry("1", "m1", 0),
                        entry("2", "m2", 0),
                        entry("3", "m3", 0),
                        entry("4", "m4", 0),
                        entry("5", "m5", 0)));
        List<String> bodies = new ArrayList<>();
        Eventually.await("all 5 received 2 at a time", Duration.ofSeconds(20), () -> {
            List<Message> got = sqs.receiveMessage(
                            b -> b.queueUrl(url).maxNumberOfMessages(2).visibilityTimeout(60))
                    .messages();
            assertTrue(got.size() <= 2, got.toString());
            got.forEach(m -> bodies.add(m.body()));
            return bodies.size() == 5;
        });
        assertEquals(
                List.of("m1", "m2", "m3", "m4", "m5"), bodies.stream().sorted().toList());
        SqsException eleven = assertThrows(
                SqsException.class,
                () -> sqs.receiveMessage(b -> b.queueUrl(url).maxNumberOfMessages(11)));
        assertEquals(400, eleven.statusCode(), eleven.toString());
    }

    @Test
    void deleteMessageRemovesItAndAForgedHandleIsInvalid() {
        sqs.sendMessage(b -> b.queueUrl(url).messageBody("done"));
        Message got = queue.receiveOne(b -> b);
        sqs.deleteMessage(b -> b.queueUrl(url).receiptHandle(got.receiptHandle()));
        queue.assertCounts(0, 0);
        assertAwsError(
                assertThrows(
                        ReceiptHandleIsInvalidException.class,
                        () -> sqs.deleteMessage(b -> b.queueUrl(url).receiptHandle("not-a-receipt-handle"))),
                400,
                "ReceiptHandleIsInvalid");
    }

    @Test
    void aHandleFromAnotherQueueIsInvalidThere() {
        sqs.sendMessage(b -> b.queueUrl(url).messageBody("mine"));
        Message got = queue.receiveOne(b -> b.visibilityTimeout(60));
        String elsewhere = sqs.createQueue(b -> b.queueName("elsewhere")).queueUrl();
        assertThrows(
                ReceiptHandleIsInvalidException.class,
                () -> sqs.deleteMessage(b -> b.queueUrl(elsewhere).receiptHandle(got.receiptHandle())));
        queue.assertCounts(0, 1);
    }

    @Test
    void changeMessageVisibilityAndItsBatch() {
        sqs.sendMessageBatch(b -> b.queueUrl(url).entries(entry("1", "m1", 0), entry("2", "m2", 0)));
        List<Message> held = queue.receiveAll(2);
        sqs.changeMessageVisibility(
                b -> b.queueUrl(url).receiptHandle(held.get(0).receiptHandle()).visibilityTimeout(0));
        Message back = queue.receiveOne(b -> b.visibilityTimeout(60));
        assertEquals(held.get(0).messageId(), back.messageId());

        ChangeMessageVisibilityBatchResponse changed = sqs.changeMessageVisibilityBatch(b -> b.queueUrl(url)
                .entries(
                        e -> e.id("back").receiptHandle(back.receiptHandle()).visibilityTimeout(0),
                        e -> e.id("forged")
                                .receiptHandle("not-a-receipt-handle")
                                .visibilityTimeout(0),
                        e -> e.id("other")
                                .receiptHandle(held.get(1).receiptHandle())
                                .visibilityTimeout(0)));
        assertEquals(
                List.of("back", "other"),
                changed.successful().stream().map(e -> e.id()).sorted().toList());
        assertEquals(
                List.of("forged"), changed.failed().stream().map(e -> e.id()).toList());
        assertEquals("ReceiptHandleIsInvalid", changed.failed().get(0).code());
        assertEquals(
                List.of("m1", "m2"),
                queue.receiveAll(2).stream().map(Message::body).sorted().toList());
    }

    @Test
    void purgeQueueEmptiesIt() {
        sqs.sendMessageBatch(b -> b.queueUrl(url).entries(entry("1", "m1", 0), entry("2", "m2", 0)));
        queue.receiveOne(b -> b.visibilityTimeout(60));
        sqs.purgeQueue(b -> b.queueUrl(url));
        // AWS allows up to 60 s for a purge; polled.
        Eventually.await(
                "the purged queue is empty",
                Duration.ofSeconds(10),
                () -> queue.count(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES) == 0
                        && queue.count(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE) == 0);
        assertEquals(List.of(), sqs.receiveMessage(b -> b.queueUrl(url)).messages());
    }

    @Test
    void aDelayedMessageIsCountedAsDelayedThenDelivered() {
        sqs.sendMessage(b -> b.queueUrl(url).messageBody("much later").delaySeconds(900));
        sqs.sendMessage(b -> b.queueUrl(url).messageBody("later").delaySeconds(1));
        assertTrue(
                queue.count(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_DELAYED) >= 1, "the 900 s one at least");
        assertEquals("later", queue.receiveOne(b -> b).body());
        assertEquals(1, queue.count(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_DELAYED), "the 900 s one");
    }

    /**
     * A name in ReceiveMessage's attribute lists that SQS's model does not hold is InvalidAttributeName, as in
     * GetQueueAttributes, instead of an answer that reads as if the message had no such attribute; the model's names
     * are taken in both lists, and nothing is received by a refused call.
     */
    @Test
    void receiveRefusesAnAttributeNameSqsDoesNotKnow() {
        String named = sqs.createQueue(create -> create.queueName("sdk-names")).queueUrl();
        sqs.sendMessage(send -> send.queueUrl(named).messageBody("named"));
        assertThrows(
                InvalidAttributeNameException.class,
                () -> sqs.receiveMessage(receive -> receive.queueUrl(named)
                        .messageSystemAttributeNamesWithStrings("SentTimestamp", "SentTimeStamp")));
        assertThrows(
                InvalidAttributeNameException.class,
                () -> sqs.receiveMessage(receive -> receive.queueUrl(named).attributeNamesWithStrings("Bogus")));
        assertThrows(
                InvalidAttributeNameException.class,
                () -> sqs.receiveMessage(receive ->
                        receive.queueUrl(named).messageSystemAttributeNamesWithStrings("VisibilityTimeout")));
        var received = sqs.receiveMessage(receive -> receive.queueUrl(named)
                        .attributeNamesWithStrings("SenderId", "VisibilityTimeout")
                        .messageSystemAttributeNamesWithStrings("ApproximateReceiveCount", "MessageGroupId"))
                .messages();
        assertEquals(1, received.size());
        assertEquals("1", received.get(0).attributesAsStrings().get("ApproximateReceiveCount"));
        assertTrue(received.get(0).attributesAsStrings().containsKey("SenderId"));
    }
}
