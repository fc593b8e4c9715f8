package io.pigeon.clients;

import static io.pigeon.clients.SqsQueue.md5;
import static io.pigeon.clients.SqsQueue.string;
import static io.pigeon.testing.StatementRequests.carried;
import static io.pigeon.testing.StatementRequests.statements;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.MeterRegistry;
import io.pigeon.sqs.SqsReceipts;
import io.pigeon.testing.Api;
import io.pigeon.testing.Eventually;
import io.pigeon.testing.Sqs;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.BatchResultErrorEntry;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchResponse;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchResponse;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchResultEntry;

/**
 * Real parallel clients (the AWS SDK v2, its MD5 checks on, a client per thread) send and delete batches together on
 * two queues of one project, so that their SendMessageBatch and DeleteMessageBatch requests share statements (the
 * Zaqar posts' and the deletes by receipts' {@code Coalescer}): every entry must still be answered as if its request
 * had run alone. Each batch mixes good entries with attributes and bad ones (a delay over 900 s, a body over the
 * queue's MaximumMessageSize, a forged handle, another queue's handle), and the bad ones fail only themselves; every
 * message sent is received once with the id, body and attributes its send was answered, and nothing is left.
 */
@QuarkusTest
@Tag(SqsJavaSdkMessageTest.MESSAGES)
class SqsSharedStatementsTest {

    private static final int CLIENTS = 8;
    private static final int ROUNDS = 12;
    private static final int GOOD_PER_BATCH = 8;
    private static final int MAX_SIZE = 1024;

    @Inject
    MeterRegistry registry;

    private final String project = Api.newProject();
    /** Every message a send was answered for: its id to its body. */
    private final Map<String, String> sent = new ConcurrentHashMap<>();
    /**
     * Every message received: its id to its body (a second receive of one is a failure). Compared with {@link #sent}
     * once every client is done: another client may receive a message before its sender has read its answer.
     */
    private final Map<String, String> received = new ConcurrentHashMap<>();

    private final List<String> failures = new CopyOnWriteArrayList<>();

    @Test
    void batchesSharingStatementsAnswerEachEntryItsOwnAndLoseOrDoubleNothing() throws Exception {
        List<String> urls = new ArrayList<>();
        String stranger;
        try (SqsClient setup = Sqs.clientFor(project)) {
            for (String name : List.of("shared-a", "shared-b")) {
                urls.add(setup.createQueue(b -> b.queueName(name)
                                .attributes(Map.of(QueueAttributeName.MAXIMUM_MESSAGE_SIZE, String.valueOf(MAX_SIZE))))
                        .queueUrl());
            }
            // A valid handle of another queue: ReceiptHandleIsInvalid on these, wherever it is shared.
            String other = setup.createQueue(b -> b.queueName("shared-other")).queueUrl();
            setup.sendMessage(b -> b.queueUrl(other).messageBody("elsewhere"));
            stranger = setup.receiveMessage(b -> b.queueUrl(other).visibilityTimeout(600))
                    .messages()
                    .get(0)
                    .receiptHandle();
        }
        double[] carriedBefore = {carried(registry, "post"), carried(registry, SqsReceipts.STATEMENT_KIND)};
        long[] statementsBefore = {statements(registry, "post"), statements(registry, SqsReceipts.STATEMENT_KIND)};

        ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
        try {
            List<Callable<Void>> work = new ArrayList<>();
            for (int c = 0; c < CLIENTS; c++) {
                int client = c;
                work.add(() -> {
                    try (SqsClient sqs = Sqs.clientFor(project)) {
                        String url = urls.get(client % urls.size());
                        for (int round = 0; round < ROUNDS; round++) {
                            sendBatch(sqs, url, client, round);
                            receiveAndDelete(sqs, url, stranger);
                        }
                    }
                    return null;
                });
            }
            for (Future<Void> done : clients.invokeAll(work, 5, TimeUnit.MINUTES)) {
                done.get();
            }
        } finally {
            clients.shutdownNow();
        }
        assertEquals(List.of(), failures);
        assertEquals(CLIENTS * ROUNDS * GOOD_PER_BATCH, sent.size(), "every good entry stored once, with its own id");

        // What the rounds left (received by no one yet) is received and deleted now, each message once.
        try (SqsClient sqs = Sqs.clientFor(project)) {
            for (String url : urls) {
                Eventually.await("every message of " + url + " received and deleted", Duration.ofSeconds(60), () -> {
                    receiveAndDelete(sqs, url, stranger);
                    return left(sqs, url) == 0;
                });
            }
        }
        assertEquals(List.of(), failures);
        assertEquals(sent, received, "every message sent received once with the body it was sent, none other");

        // Requests did share statements (loosely: at least one statement carried more than one request).
        String[] kinds = {"post", SqsReceipts.STATEMENT_KIND};
        for (int k = 0; k < kinds.length; k++) {
            double requests = carried(registry, kinds[k]) - carriedBefore[k];
            long statements = statements(registry, kinds[k]) - statementsBefore[k];
            assertTrue(
                    requests > statements, kinds[k] + ": " + requests + " requests in " + statements + " statements");
        }
    }

    /** One batch of good entries with attributes, a delay over the bound and a body over the queue's size. */
    private void sendBatch(SqsClient sqs, String url, int client, int round) {
        List<SendMessageBatchRequestEntry> entries = new ArrayList<>();
        Map<String, String> bodies = new HashMap<>();
        for (int i = 0; i < GOOD_PER_BATCH; i++) {
            String body = "client " + client + " round " + round + " entry " + i;
            bodies.put("good-" + i, body);
            entries.add(SendMessageBatchRequestEntry.builder()
                    .id("good-" + i)
                    .messageBody(body)
                    .messageAttributes(
                            i % 2 == 0 ? Map.of("client", string("Number", String.valueOf(client))) : Map.of())
                    .build());
        }
        entries.add(
                3,
                SendMessageBatchRequestEntry.builder()
                        .id("late")
                        .messageBody("too late")
                        .delaySeconds(901)
                        .build());
        entries.add(
                6,
                SendMessageBatchRequestEntry.builder()
                        .id("large")
                        .messageBody("x".repeat(MAX_SIZE + 1))
                        .build());
        // The SDK fails the call itself if a digest answered is not that of the entry it names.
        SendMessageBatchResponse answer =
                sqs.sendMessageBatch(b -> b.queueUrl(url).entries(entries));
        if (answer.successful().size() != GOOD_PER_BATCH || answer.failed().size() != 2) {
            failures.add("send: " + answer);
            return;
        }
        for (SendMessageBatchResultEntry ok : answer.successful()) {
            String body = bodies.get(ok.id());
            if (body == null || !md5(body).equals(ok.md5OfMessageBody())) {
                failures.add("send entry " + ok.id() + " answered another's digest: " + ok);
            }
            boolean withAttributes = Integer.parseInt(ok.id().substring(5)) % 2 == 0;
            if (withAttributes != (ok.md5OfMessageAttributes() != null)) {
                failures.add("send entry " + ok.id() + " attributes' digest: " + ok);
            }
            if (sent.putIfAbsent(ok.messageId(), body) != null) {
                failures.add("message id " + ok.messageId() + " answered twice");
            }
        }
        for (BatchResultErrorEntry failed : answer.failed()) {
            if (!failed.id().equals("late") && !failed.id().equals("large")
                    || !"InvalidParameterValue".equals(failed.code())
                    || !failed.senderFault()) {
                failures.add("send: an entry failed that should not have: " + failed);
            }
        }
    }

    /** Receives up to 8 and deletes them in a batch of 10 with a forged handle and another queue's. */
    private void receiveAndDelete(SqsClient sqs, String url, String stranger) {
        List<Message> messages = sqs.receiveMessage(b -> b.queueUrl(url)
                        .maxNumberOfMessages(8)
                        .visibilityTimeout(120)
                        .messageAttributeNames("All"))
                .messages();
        if (messages.isEmpty()) {
            return;
        }
        List<DeleteMessageBatchRequestEntry> entries = new ArrayList<>();
        entries.add(DeleteMessageBatchRequestEntry.builder()
                .id("forged")
                .receiptHandle("not-a-receipt-handle")
                .build());
        for (int i = 0; i < messages.size(); i++) {
            Message message = messages.get(i);
            if (received.putIfAbsent(message.messageId(), message.body()) != null) {
                failures.add("message " + message.messageId() + " received twice");
            }
            int entry = Integer.parseInt(message.body().substring(message.body().lastIndexOf(' ') + 1));
            String client = message.body().split(" ")[1];
            if (entry % 2 == 0) {
                assertNotNull(message.messageAttributes().get("client"), message.toString());
                if (!client.equals(message.messageAttributes().get("client").stringValue())) {
                    failures.add("message " + message.messageId() + " has another's attributes: " + message);
                }
            } else {
                assertNull(message.md5OfMessageAttributes(), message.toString());
            }
            entries.add(DeleteMessageBatchRequestEntry.builder()
                    .id("m" + i)
                    .receiptHandle(message.receiptHandle())
                    .build());
        }
        entries.add(DeleteMessageBatchRequestEntry.builder()
                .id("stranger")
                .receiptHandle(stranger)
                .build());
        DeleteMessageBatchResponse answer =
                sqs.deleteMessageBatch(b -> b.queueUrl(url).entries(entries));
        if (answer.successful().size() != messages.size()) {
            failures.add("delete: " + answer);
        }
        for (BatchResultErrorEntry failed : answer.failed()) {
            if (!failed.id().equals("forged") && !failed.id().equals("stranger")
                    || !"ReceiptHandleIsInvalid".equals(failed.code())) {
                failures.add("delete: an entry failed that should not have: " + failed);
            }
        }
        if (answer.failed().size() != 2) {
            failures.add("delete: the bad handles did not fail: " + answer);
        }
    }

    /** The queue's messages, visible or not. */
    private static int left(SqsClient sqs, String url) {
        Map<QueueAttributeName, String> counts = sqs.getQueueAttributes(b -> b.queueUrl(url)
                        .attributeNames(
                                QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES,
                                QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE))
                .attributes();
        return counts.values().stream().mapToInt(Integer::parseInt).sum();
    }
}
