package io.pigeon.clients;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pigeon.testing.Eventually;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.function.UnaryOperator;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;
import software.amazon.awssdk.services.sqs.model.ReceiveMessageRequest;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;

/**
 * One queue as the SQS message tests use it through the Java SDK: receives that poll until what is expected has
 * come (AWS promises no message on any one receive), its counts, and the small builders and digests the tests share.
 */
record SqsQueue(SqsClient sqs, String url) {

    /** Receives until one message comes (1 s long polls, 20 s at most) and checks it is the only one. */
    Message receiveOne(UnaryOperator<ReceiveMessageRequest.Builder> options) {
        List<Message> got = new ArrayList<>();
        Eventually.await("a message to receive from " + url, Duration.ofSeconds(20), () -> {
            got.addAll(sqs.receiveMessage(b -> options.apply(b.queueUrl(url).waitTimeSeconds(1)))
                    .messages());
            return !got.isEmpty();
        });
        assertEquals(1, got.size(), got.toString());
        return got.get(0);
    }

    /** Receives (for 60 s each) until {@code expected} messages have come, and checks no more did. */
    List<Message> receiveAll(int expected) {
        List<Message> got = new ArrayList<>();
        Eventually.await(expected + " messages to receive from " + url, Duration.ofSeconds(20), () -> {
            got.addAll(sqs.receiveMessage(
                            b -> b.queueUrl(url).maxNumberOfMessages(10).visibilityTimeout(60))
                    .messages());
            return got.size() >= expected;
        });
        assertEquals(expected, got.size(), got.toString());
        return got;
    }

    /** One of the queue's Approximate* counts. */
    int count(QueueAttributeName name) {
        return Integer.parseInt(sqs.getQueueAttributes(b -> b.queueUrl(url).attributeNames(name))
                .attributes()
                .get(name));
    }

    void assertCounts(int visible, int notVisible) {
        assertEquals(visible, count(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES), "visible");
        assertEquals(notVisible, count(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE), "in flight");
    }

    static SendMessageBatchRequestEntry entry(String id, String body, int delaySeconds) {
        return SendMessageBatchRequestEntry.builder()
                .id(id)
                .messageBody(body)
                .delaySeconds(delaySeconds)
                .build();
    }

    static MessageAttributeValue string(String type, String value) {
        return MessageAttributeValue.builder().dataType(type).stringValue(value).build();
    }

    /** The hex MD5 of the text's UTF-8 bytes, as MD5OfMessageBody. */
    static String md5(String text) {
        try {
            return HexFormat.of()
                    .formatHex(MessageDigest.getInstance("MD5").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
