package io.pigeon.api.sqs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.testing.Api;
import io.pigeon.testing.Sqs;
import io.quarkus.test.junit.QuarkusTest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;
import software.amazon.awssdk.services.sqs.model.SqsException;

/**
 * ReceiveRequestAttemptId on a FIFO queue through aws-sdk-java v2, as AWS's ReceiveMessage reference describes it: a
 * receive retried with the same attempt id answers the same messages with the same receipt handles (not a new receive:
 * the receive count stays), a different id takes the next messages, and once a message of the first receive was
 * deleted or given another visibility the id is spent (InvalidParameterValue). A standard queue ignores the id.
 */
@QuarkusTest
class SqsReceiveAttemptJavaSdkTest {

    private final String project = Api.newProject();
    private SqsClient sqs;

    @BeforeEach
    void client() {
        sqs = Sqs.clientFor(project);
    }

    @AfterEach
    void close() {
        sqs.close();
    }

    private String fifoWith(String name, String... groups) {
        String url = sqs.createQueue(create -> create.queueName(name)
                        .attributesWithStrings(Map.of("FifoQueue", "true", "ContentBasedDeduplication", "true")))
                .queueUrl();
        for (String group : groups) {
            for (int i = 0; i < 3; i++) {
                String body = group + "-" + i;
                sqs.sendMessage(send -> send.queueUrl(url).messageBody(body).messageGroupId(group));
            }
        }
        return url;
    }

    private List<Message> receive(String url, String attemptId) {
        return sqs.receiveMessage(receive -> receive.queueUrl(url)
                        .maxNumberOfMessages(3)
                        .visibilityTimeout(60)
                        .receiveRequestAttemptId(attemptId)
                        .messageSystemAttributeNames(MessageSystemAttributeName.ALL))
                .messages();
    }

    private static List<String> ids(List<Message> messages) {
        return messages.stream().map(Message::messageId).toList();
    }

    @Test
    void theSameAttemptIdAnswersTheSameMessagesAndAnotherTakesTheNext() {
        String url = fifoWith("retried.fifo", "a", "b");
        List<Message> first = receive(url, "attempt-1");
        assertFalse(first.isEmpty());
        List<Message> again = receive(url, "attempt-1");
        assertEquals(ids(first), ids(again));
        assertEquals(
                first.stream().map(Message::receiptHandle).toList(),
                again.stream().map(Message::receiptHandle).toList(),
                "the same receipt handles");
        assertEquals(
                first.stream().map(Message::body).toList(),
                again.stream().map(Message::body).toList());
        for (Message message : again) {
            assertEquals(
                    "1",
                    message.attributes().get(MessageSystemAttributeName.APPROXIMATE_RECEIVE_COUNT),
                    "a replay is not another receive");
        }
        // Another id takes what is left (a group of 3 each: the oldest first); the first receive's group stays blocked.
        Set<String> firstGroups = first.stream()
                .map(m -> m.attributes().get(MessageSystemAttributeName.MESSAGE_GROUP_ID))
                .collect(Collectors.toSet());
        List<Message> next = receive(url, "attempt-2");
        for (Message message : next) {
            assertFalse(ids(first).contains(message.messageId()));
            assertFalse(firstGroups.contains(message.attributes().get(MessageSystemAttributeName.MESSAGE_GROUP_ID)));
        }
        assertEquals(6, first.size() + next.size(), "both groups were taken, one by each receive");
        // Each id still answers its own receive.
        assertEquals(ids(first), ids(receive(url, "attempt-1")));
        assertEquals(ids(next), ids(receive(url, "attempt-2")));
        // A handle of the replayed answer deletes its message.
        Message replayed = receive(url, "attempt-2").get(0);
        sqs.deleteMessage(delete -> delete.queueUrl(url).receiptHandle(replayed.receiptHandle()));
        assertEquals(
                "5",
                sqs.getQueueAttributes(get ->
                                get.queueUrl(url).attributeNamesWithStrings("ApproximateNumberOfMessagesNotVisible"))
                        .attributesAsStrings()
                        .get("ApproximateNumberOfMessagesNotVisible"));
    }

    @Test
    void anAttemptIdIsSpentOnceAMessageOfItsReceiveIsDeletedOrChanged() {
        String url = fifoWith("spent.fifo", "a", "b");
        List<Message> first = receive(url, "deleted-after");
        sqs.deleteMessage(
                delete -> delete.queueUrl(url).receiptHandle(first.get(0).receiptHandle()));
        SqsException spent = assertThrows(SqsException.class, () -> receive(url, "deleted-after"));
        assertEquals("InvalidParameterValue", spent.awsErrorDetails().errorCode());
        assertTrue(spent.awsErrorDetails().errorMessage().contains("ReceiveRequestAttemptId"), spent.getMessage());
        // A visibility change spends the id too.
        List<Message> second = receive(url, "changed-after");
        assertFalse(second.isEmpty());
        sqs.changeMessageVisibility(change -> change.queueUrl(url)
                .receiptHandle(second.get(0).receiptHandle())
                .visibilityTimeout(90));
        SqsException changed = assertThrows(SqsException.class, () -> receive(url, "changed-after"));
        assertEquals("InvalidParameterValue", changed.awsErrorDetails().errorCode());
    }

    @Test
    void retriesSentAtOnceEachAnswerTheReceiveTheyRepeat() throws Exception {
        // Retries of one live receive that arrive together queue behind each other on the attempt's row lock: each
        // must still see the receive as the retry before it left it (its visibility moved), not as spent.
        String url = fifoWith("retried-at-once.fifo", "a", "b");
        List<String> first = ids(receive(url, "together"));
        assertFalse(first.isEmpty());
        ExecutorService pool = Executors.newFixedThreadPool(10);
        try {
            for (int round = 0; round < 5; round++) {
                List<Future<List<String>>> retries = new ArrayList<>();
                for (int i = 0; i < 10; i++) {
                    retries.add(pool.submit(() -> ids(receive(url, "together"))));
                }
                for (Future<List<String>> retry : retries) {
                    assertEquals(first, retry.get(), "a retry of a receive that still holds its messages");
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aStandardQueueIgnoresTheAttemptId() {
        String url =
                sqs.createQueue(create -> create.queueName("standard-attempts")).queueUrl();
        sqs.sendMessage(send -> send.queueUrl(url).messageBody("one"));
        sqs.sendMessage(send -> send.queueUrl(url).messageBody("two"));
        List<Message> first = sqs.receiveMessage(
                        receive -> receive.queueUrl(url).visibilityTimeout(60).receiveRequestAttemptId("same"))
                .messages();
        List<Message> second = sqs.receiveMessage(
                        receive -> receive.queueUrl(url).visibilityTimeout(60).receiveRequestAttemptId("same"))
                .messages();
        assertEquals(1, first.size());
        assertEquals(1, second.size());
        assertFalse(first.get(0).messageId().equals(second.get(0).messageId()), "a new receive each time");
    }
}
