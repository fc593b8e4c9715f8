package io.pigeon.clients;

import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.testing.Api;
import io.pigeon.testing.Sqs;
import io.quarkus.test.junit.QuarkusTest;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * KEDA's own {@code aws-sqs-queue} scaler (kedacore/keda, pkg/scalers/aws_sqs_queue_scaler.go) pointed at Pigeon: it
 * takes the queue's name from the URL's path ({@code /<account>/<name>}, exactly two segments), asks GetQueueAttributes
 * for {@code ApproximateNumberOfMessages}, plus {@code ApproximateNumberOfMessagesNotVisible} when
 * {@code scaleOnInFlight} (the default) and {@code ApproximateNumberOfMessagesDelayed} when {@code scaleOnDelayed},
 * fails when an attribute asked for is missing, and sums them as 64-bit integers. The same calls, made here with the
 * AWS SDK for Java, must give the queue's real state: visible, in flight and delayed messages.
 */
@QuarkusTest
class KedaSqsScalerTest {

    private final String project = Api.newProject();
    private SqsClient sqs;

    @BeforeEach
    void openClient() {
        sqs = Sqs.clientFor(project);
    }

    @AfterEach
    void closeClient() {
        sqs.close();
    }

    /** What KEDA's scaler computes for the queue, with its two switches. */
    private long kedaQueueLength(String queueUrl, boolean scaleOnInFlight, boolean scaleOnDelayed) {
        List<QueueAttributeName> names = new ArrayList<>(List.of(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES));
        if (scaleOnInFlight) {
            names.add(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE);
        }
        if (scaleOnDelayed) {
            names.add(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_DELAYED);
        }
        Map<String, String> attributes = sqs.getQueueAttributes(
                        b -> b.queueUrl(queueUrl).attributeNames(names))
                .attributesAsStrings();
        long sum = 0;
        for (QueueAttributeName name : names) {
            String value = attributes.get(name.toString());
            assertTrue(value != null, "KEDA fails when " + name + " is missing: " + attributes);
            sum += Long.parseLong(value);
        }
        return sum;
    }

    @Test
    void kedasCallsReadTheQueuesVisibleInFlightAndDelayedMessages() {
        String url = sqs.createQueue(b -> b.queueName("keda-work")).queueUrl();
        String[] path = URI.create(url).getPath().split("/", -1);
        assertEquals(3, path.length, "KEDA takes the queue's name from a path of two segments: " + url);
        assertEquals("keda-work", path[2]);
        assertEquals(0, kedaQueueLength(url, true, true), "an empty queue is not active");

        for (int i = 0; i < 6; i++) {
            int n = i;
            sqs.sendMessage(b -> b.queueUrl(url).messageBody("now " + n));
        }
        for (int i = 0; i < 2; i++) {
            int n = i;
            sqs.sendMessage(b -> b.queueUrl(url).messageBody("later " + n).delaySeconds(600));
        }
        List<Message> inFlight = new ArrayList<>();
        while (inFlight.size() < 2) {
            int more = 2 - inFlight.size();
            inFlight.addAll(sqs.receiveMessage(b -> b.queueUrl(url)
                            .maxNumberOfMessages(more)
                            .visibilityTimeout(600)
                            .waitTimeSeconds(1))
                    .messages());
        }

        // 4 visible, 2 in flight, 2 delayed.
        assertEquals(4, kedaQueueLength(url, false, false), "scaleOnInFlight false: visible only");
        assertEquals(6, kedaQueueLength(url, true, false), "KEDA's default: visible and in flight");
        assertEquals(8, kedaQueueLength(url, true, true), "scaleOnDelayed: delayed too");
        // The same queue through Zaqar's API: 2 claimed.
        Api.as(project).get("/v2/queues/keda-work/stats").then().statusCode(200).body("messages.claimed", equalTo(2));

        for (Message done : inFlight) {
            sqs.deleteMessage(b -> b.queueUrl(url).receiptHandle(done.receiptHandle()));
        }
        assertEquals(4, kedaQueueLength(url, true, false), "deleted messages are not counted");
        sqs.purgeQueue(b -> b.queueUrl(url));
        assertEquals(0, kedaQueueLength(url, true, true), "a purged queue scales to zero");
    }
}
