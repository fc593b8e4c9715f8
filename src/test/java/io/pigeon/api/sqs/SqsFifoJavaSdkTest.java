package io.pigeon.api.sqs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.message.DeduplicationKeys;
import io.pigeon.testing.Api;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import java.math.BigInteger;
import java.net.URI;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.InvalidAttributeNameException;
import software.amazon.awssdk.services.sqs.model.InvalidAttributeValueException;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchResponse;
import software.amazon.awssdk.services.sqs.model.SendMessageResponse;
import software.amazon.awssdk.services.sqs.model.SqsException;

/**
 * SQS FIFO queues through aws-sdk-java v2 (issue 43, item 3): .fifo names and FifoQueue, the FIFO attributes,
 * MessageGroupId and MessageDeduplicationId with AWS's refusals, deduplication within the window (one message stored,
 * the first MessageId answered), content-based deduplication, SequenceNumber, order within a group, and MessageGroupId
 * on a standard queue (a fair queue's tenant).
 */
@QuarkusTest
class SqsFifoJavaSdkTest {

    @TestHTTPResource("/")
    URL endpoint;

    private final String project = Api.newProject();
    private SqsClient sqs;

    @BeforeEach
    void client() {
        sqs = SqsClient.builder()
                .endpointOverride(URI.create(endpoint.toString()))
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(project, "unused")))
                .httpClient(UrlConnectionHttpClient.create())
                .build();
    }

    @AfterEach
    void close() {
        sqs.close();
    }

    private String fifo(String name, Map<String, String> attributes) {
        Map<String, String> all = new LinkedHashMap<>(attributes);
        all.put("FifoQueue", "true");
        return sqs.createQueue(create -> create.queueName(name).attributesWithStrings(all))
                .queueUrl();
    }

    private List<Message> receiveAll(String url) {
        return sqs.receiveMessage(receive -> receive.queueUrl(url)
                        .maxNumberOfMessages(10)
                        .messageSystemAttributeNames(MessageSystemAttributeName.ALL))
                .messages();
    }

    @Test
    void aFifoQueueIsCreatedWithItsAttributesAndShowsThem() {
        String url = fifo(
                "orders.fifo",
                Map.of(
                        "ContentBasedDeduplication", "true",
                        "DeduplicationScope", "messageGroup",
                        "FifoThroughputLimit", "perMessageGroupId"));
        assertTrue(url.endsWith("/orders.fifo"), url);
        Map<String, String> shown = sqs.getQueueAttributes(
                        get -> get.queueUrl(url).attributeNames(QueueAttributeName.ALL))
                .attributesAsStrings();
        assertEquals("true", shown.get("FifoQueue"));
        assertEquals("true", shown.get("ContentBasedDeduplication"));
        assertEquals("messageGroup", shown.get("DeduplicationScope"));
        assertEquals("perMessageGroupId", shown.get("FifoThroughputLimit"));
        assertTrue(shown.get("QueueArn").endsWith(":orders.fifo"), shown.toString());
        // Creating it again with the same attributes finds it.
        assertEquals(
                url,
                fifo(
                        "orders.fifo",
                        Map.of(
                                "ContentBasedDeduplication", "true",
                                "DeduplicationScope", "messageGroup",
                                "FifoThroughputLimit", "perMessageGroupId")));
        // perMessageGroupId needs DeduplicationScope=messageGroup; the queue's type cannot change.
        assertThrows(
                InvalidAttributeValueException.class,
                () -> sqs.setQueueAttributes(
                        set -> set.queueUrl(url).attributesWithStrings(Map.of("DeduplicationScope", "queue"))));
        assertThrows(
                InvalidAttributeNameException.class,
                () -> sqs.setQueueAttributes(
                        set -> set.queueUrl(url).attributesWithStrings(Map.of("FifoQueue", "false"))));
        sqs.setQueueAttributes(set -> set.queueUrl(url)
                .attributesWithStrings(Map.of(
                        "FifoThroughputLimit",
                        "perQueue",
                        "DeduplicationScope",
                        "queue",
                        "ContentBasedDeduplication",
                        "false")));
        Map<String, String> after = sqs.getQueueAttributes(
                        get -> get.queueUrl(url).attributeNames(QueueAttributeName.ALL))
                .attributesAsStrings();
        assertEquals("queue", after.get("DeduplicationScope"));
        assertEquals("perQueue", after.get("FifoThroughputLimit"));
        assertEquals("false", after.get("ContentBasedDeduplication"));
        // A standard queue knows none of them.
        String standard = sqs.createQueue(create -> create.queueName("plain")).queueUrl();
        assertThrows(
                InvalidAttributeNameException.class,
                () -> sqs.setQueueAttributes(set ->
                        set.queueUrl(standard).attributesWithStrings(Map.of("DeduplicationScope", "messageGroup"))));
        assertThrows(
                InvalidAttributeNameException.class,
                () -> sqs.createQueue(create -> create.queueName("sdk-standard")
                        .attributesWithStrings(Map.of("ContentBasedDeduplication", "true"))));
    }

    @Test
    void aRepeatedDeduplicationIdStoresOneMessageAndAnswersTheFirstId() {
        String url = fifo("pay.fifo", Map.of());
        SendMessageResponse first = sqs.sendMessage(send -> send.queueUrl(url)
                .messageBody("charge 12")
                .messageGroupId("customer-1")
                .messageDeduplicationId("charge-12"));
        SendMessageResponse again = sqs.sendMessage(send -> send.queueUrl(url)
                .messageBody("charge 12, retried")
                .messageGroupId("customer-1")
                .messageDeduplicationId("charge-12"));
        assertEquals(first.messageId(), again.messageId());
        assertEquals(first.sequenceNumber(), again.sequenceNumber());
        assertTrue(new BigInteger(first.sequenceNumber()).bitLength() > 64, first.sequenceNumber());
        // A batch repeating it, and repeating an id within itself.
        SendMessageBatchResponse batch = sqs.sendMessageBatch(send -> send.queueUrl(url)
                .entries(
                        entry -> entry.id("a")
                                .messageBody("x")
                                .messageGroupId("customer-1")
                                .messageDeduplicationId("charge-12"),
                        entry -> entry.id("b")
                                .messageBody("y")
                                .messageGroupId("customer-2")
                                .messageDeduplicationId("refund-3"),
                        entry -> entry.id("c")
                                .messageBody("z")
                                .messageGroupId("customer-2")
                                .messageDeduplicationId("refund-3")));
        assertEquals(3, batch.successful().size(), batch.toString());
        assertEquals(first.messageId(), batch.successful().get(0).messageId());
        assertEquals(
                batch.successful().get(1).messageId(), batch.successful().get(2).messageId());
        List<Message> received = receiveAll(url);
        List<Message> more = receiveAll(url);
        List<String> bodies = new ArrayList<>();
        received.forEach(message -> bodies.add(message.body()));
        more.forEach(message -> bodies.add(message.body()));
        assertEquals(2, bodies.size(), bodies.toString());
        assertTrue(bodies.contains("charge 12") && bodies.contains("y"), bodies.toString());
        Message charge = received.stream()
                .filter(m -> m.body().equals("charge 12"))
                .findFirst()
                .orElseGet(() -> more.get(0));
        Map<MessageSystemAttributeName, String> system = charge.attributes();
        assertEquals("customer-1", system.get(MessageSystemAttributeName.MESSAGE_GROUP_ID));
        assertEquals("charge-12", system.get(MessageSystemAttributeName.MESSAGE_DEDUPLICATION_ID));
        assertEquals(first.sequenceNumber(), system.get(MessageSystemAttributeName.SEQUENCE_NUMBER));
    }

    @Test
    void contentBasedDeduplicationHashesTheBody() {
        String url = fifo("content.fifo", Map.of("ContentBasedDeduplication", "true"));
        SendMessageResponse first =
                sqs.sendMessage(send -> send.queueUrl(url).messageBody("hello").messageGroupId("g"));
        SendMessageResponse same = sqs.sendMessage(send -> send.queueUrl(url)
                .messageBody("hello")
                .messageGroupId("g")
                .messageAttributes(Map.of(
                        "a",
                        software.amazon.awssdk.services.sqs.model.MessageAttributeValue.builder()
                                .dataType("String")
                                .stringValue("attributes are not hashed")
                                .build())));
        SendMessageResponse other =
                sqs.sendMessage(send -> send.queueUrl(url).messageBody("hello!").messageGroupId("g"));
        assertEquals(first.messageId(), same.messageId());
        assertNotEquals(first.messageId(), other.messageId());
        Message received = receiveAll(url).get(0);
        assertEquals(
                DeduplicationKeys.contentHash("hello"),
                received.attributes().get(MessageSystemAttributeName.MESSAGE_DEDUPLICATION_ID));
    }

    @Test
    void messagesOfAGroupAreReceivedInTheOrderSent() {
        String url = fifo("ordered.fifo", Map.of("ContentBasedDeduplication", "true"));
        for (int i = 0; i < 12; i++) {
            int n = i;
            sqs.sendMessage(send -> send.queueUrl(url).messageBody("a-" + n).messageGroupId("a"));
            sqs.sendMessage(send -> send.queueUrl(url).messageBody("b-" + n).messageGroupId("b"));
        }
        Map<String, List<String>> seen = new LinkedHashMap<>();
        for (int polls = 0;
                polls < 50 && seen.values().stream().mapToInt(List::size).sum() < 24;
                polls++) {
            for (Message message : receiveAll(url)) {
                String group = message.attributes().get(MessageSystemAttributeName.MESSAGE_GROUP_ID);
                seen.computeIfAbsent(group, g -> new ArrayList<>()).add(message.body());
                sqs.deleteMessage(delete -> delete.queueUrl(url).receiptHandle(message.receiptHandle()));
            }
        }
        List<String> a = new ArrayList<>();
        List<String> b = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            a.add("a-" + i);
            b.add("b-" + i);
        }
        assertEquals(a, seen.get("a"));
        assertEquals(b, seen.get("b"));
    }

    @Test
    void theRefusalsAreAwss() {
        String url = fifo("strict.fifo", Map.of());
        SqsException noGroup = assertThrows(
                SqsException.class,
                () -> sqs.sendMessage(
                        send -> send.queueUrl(url).messageBody("x").messageDeduplicationId("d")));
        assertEquals("MissingParameter", noGroup.awsErrorDetails().errorCode());
        SqsException noDedup = assertThrows(
                SqsException.class,
                () -> sqs.sendMessage(
                        send -> send.queueUrl(url).messageBody("x").messageGroupId("g")));
        assertEquals("InvalidParameterValue", noDedup.awsErrorDetails().errorCode());
        assertTrue(noDedup.awsErrorDetails().errorMessage().contains("ContentBasedDeduplication"));
        SqsException delayed = assertThrows(
                SqsException.class,
                () -> sqs.sendMessage(send -> send.queueUrl(url)
                        .messageBody("x")
                        .messageGroupId("g")
                        .messageDeduplicationId("d")
                        .delaySeconds(5)));
        assertEquals("InvalidParameterValue", delayed.awsErrorDetails().errorCode());
        // A delay of 0 is none: taken (AWS takes it, as moto's test verified against AWS shows).
        sqs.sendMessage(send -> send.queueUrl(url)
                .messageBody("no delay")
                .messageGroupId("g0")
                .messageDeduplicationId("d0")
                .delaySeconds(0));
        // A FIFO queue's dead-letter queue is a FIFO queue, a standard queue's a standard one (AWS's rule).
        String standardArn = sqs.getQueueAttributes(
                        get -> get.queueUrl(sqs.createQueue(create -> create.queueName("standard-dlq"))
                                        .queueUrl())
                                .attributeNames(QueueAttributeName.QUEUE_ARN))
                .attributesAsStrings()
                .get("QueueArn");
        String redrive = "{\"deadLetterTargetArn\": \"" + standardArn + "\", \"maxReceiveCount\": 2}";
        assertThrows(
                InvalidAttributeValueException.class,
                () -> sqs.setQueueAttributes(
                        set -> set.queueUrl(url).attributesWithStrings(Map.of("RedrivePolicy", redrive))));
        assertThrows(
                InvalidAttributeValueException.class,
                () -> fifo("with-standard-dlq.fifo", Map.of("RedrivePolicy", redrive)));
        SqsException badGroup = assertThrows(
                SqsException.class,
                () -> sqs.sendMessage(send -> send.queueUrl(url)
                        .messageBody("x")
                        .messageGroupId("g".repeat(129))
                        .messageDeduplicationId("d")));
        assertEquals("InvalidParameterValue", badGroup.awsErrorDetails().errorCode());
        // In a batch, each entry alone.
        SendMessageBatchResponse batch = sqs.sendMessageBatch(send -> send.queueUrl(url)
                .entries(
                        entry -> entry.id("ok")
                                .messageBody("x")
                                .messageGroupId("g")
                                .messageDeduplicationId("d1"),
                        entry -> entry.id("bad").messageBody("y").messageGroupId("g")));
        assertEquals(1, batch.successful().size());
        assertEquals("bad", batch.failed().get(0).id());
        assertEquals("InvalidParameterValue", batch.failed().get(0).code());
        // ReceiveRequestAttemptId is taken within AWS's bound (its replay: SqsReceiveAttemptJavaSdkTest).
        SqsException badAttempt = assertThrows(
                SqsException.class,
                () -> sqs.receiveMessage(receive -> receive.queueUrl(url).receiveRequestAttemptId("a b")));
        assertEquals("InvalidParameterValue", badAttempt.awsErrorDetails().errorCode());
        assertEquals(
                2,
                sqs.receiveMessage(receive ->
                                receive.queueUrl(url).maxNumberOfMessages(10).receiveRequestAttemptId("attempt-1"))
                        .messages()
                        .size(),
                "nothing refused was stored (the one without delay is in group g0)");
        // A standard queue: no deduplication id, but a group (a fair queue's tenant) is taken and shown.
        String standard = sqs.createQueue(create -> create.queueName("tenants")).queueUrl();
        SqsException dedupOnStandard = assertThrows(
                SqsException.class,
                () -> sqs.sendMessage(
                        send -> send.queueUrl(standard).messageBody("x").messageDeduplicationId("d")));
        assertEquals("InvalidParameterValue", dedupOnStandard.awsErrorDetails().errorCode());
        SendMessageResponse fair =
                sqs.sendMessage(send -> send.queueUrl(standard).messageBody("x").messageGroupId("tenant-7"));
        assertNull(fair.sequenceNumber());
        assertNull(fair.md5OfMessageSystemAttributes());
        Message received = receiveAll(standard).get(0);
        assertEquals("tenant-7", received.attributes().get(MessageSystemAttributeName.MESSAGE_GROUP_ID));
        assertNull(received.attributes().get(MessageSystemAttributeName.SEQUENCE_NUMBER));
    }

    @Test
    void aStandardQueueDeduplicatingByContentThroughZaqarDeduplicatesItsSqsSends() {
        // Only the Zaqar API sets _content_based_deduplication on a queue without a .fifo name: the shared post
        // statement refuses an SQS send to it, which is then sent through the keys instead of failing.
        String url = sqs.createQueue(create -> create.queueName("zaqar-dedup")).queueUrl();
        Api.as(project)
                .contentType("application/openstack-messaging-v2.0-json-patch")
                .body("[{\"op\": \"add\", \"path\": \"/metadata/_content_based_deduplication\", \"value\": true}]"
                        .getBytes(StandardCharsets.UTF_8))
                .patch("/v2/queues/zaqar-dedup")
                .then()
                .statusCode(200);
        SendMessageResponse first = sqs.sendMessage(send -> send.queueUrl(url).messageBody("same"));
        SendMessageResponse again = sqs.sendMessage(send -> send.queueUrl(url).messageBody("same"));
        assertEquals(first.messageId(), again.messageId());
        assertNull(again.sequenceNumber(), "a standard queue answers no SequenceNumber");
        SendMessageBatchResponse batch = sqs.sendMessageBatch(
                send -> send.queueUrl(url).entries(entry -> entry.id("a").messageBody("same"), entry -> entry.id("b")
                        .messageBody("other")));
        assertEquals(2, batch.successful().size(), batch.toString());
        assertEquals(first.messageId(), batch.successful().get(0).messageId());
        List<String> bodies = new ArrayList<>();
        receiveAll(url).forEach(message -> {
            bodies.add(message.body());
            assertNull(message.attributes().get(MessageSystemAttributeName.MESSAGE_DEDUPLICATION_ID));
        });
        receiveAll(url).forEach(message -> bodies.add(message.body()));
        assertEquals(List.of("other", "same"), bodies.stream().sorted().toList());
    }
}
