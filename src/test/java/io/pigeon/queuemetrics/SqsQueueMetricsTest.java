package io.pigeon.queuemetrics;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pigeon.testing.Api;
import io.pigeon.testing.Eventually;
import io.pigeon.testing.Sqs;
import io.quarkus.test.junit.QuarkusTest;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;

/**
 * SQS traffic counts in the per-queue series of /q/metrics/queues as Zaqar's does: a message sent (alone or in a
 * batch) is posted, a message received is claimed, an empty receive is an empty claim, a message deleted (alone or
 * in a batch) is deleted; and the queue's sample shows it ready, claimed or delayed. Driven by the AWS SDK for Java.
 */
@QuarkusTest
class SqsQueueMetricsTest {

    /** Longer than a sample period plus a flush and a sample, on a loaded machine. */
    private static final Duration SETTLED = Duration.ofSeconds(15);

    private final String project = Api.newProject();

    @Test
    void sendsReceivesAndDeletesThroughSqsCountForTheQueue() {
        try (SqsClient sqs = Sqs.clientFor(project)) {
            String jobs = sqs.createQueue(b -> b.queueName("sqs-jobs")).queueUrl();
            String idle = sqs.createQueue(b -> b.queueName("sqs-idle")).queueUrl();
            // 5 sent: one alone, four in a batch (one of them delayed).
            sqs.sendMessage(b -> b.queueUrl(jobs).messageBody("one"));
            sqs.sendMessageBatch(b -> b.queueUrl(jobs)
                    .entries(
                            SendMessageBatchRequestEntry.builder()
                                    .id("a")
                                    .messageBody("two")
                                    .build(),
                            SendMessageBatchRequestEntry.builder()
                                    .id("b")
                                    .messageBody("three")
                                    .build(),
                            SendMessageBatchRequestEntry.builder()
                                    .id("c")
                                    .messageBody("four")
                                    .build(),
                            SendMessageBatchRequestEntry.builder()
                                    .id("d")
                                    .messageBody("later")
                                    .delaySeconds(600)
                                    .build()));
            // 4 received; 1 deleted alone, 2 in a batch (whose third entry's handle is not one: nothing more).
            List<Message> received = sqs.receiveMessage(
                            b -> b.queueUrl(jobs).maxNumberOfMessages(10).visibilityTimeout(600))
                    .messages();
            assertEquals(4, received.size(), received.toString());
            sqs.deleteMessage(
                    b -> b.queueUrl(jobs).receiptHandle(received.get(0).receiptHandle()));
            sqs.deleteMessageBatch(b -> b.queueUrl(jobs)
                    .entries(
                            DeleteMessageBatchRequestEntry.builder()
                                    .id("x")
                                    .receiptHandle(received.get(1).receiptHandle())
                                    .build(),
                            DeleteMessageBatchRequestEntry.builder()
                                    .id("y")
                                    .receiptHandle(received.get(2).receiptHandle())
                                    .build(),
                            DeleteMessageBatchRequestEntry.builder()
                                    .id("z")
                                    .receiptHandle("not-a-handle")
                                    .build()));
            // Two receives find nothing.
            sqs.receiveMessage(b -> b.queueUrl(idle).waitTimeSeconds(0));
            sqs.receiveMessage(b -> b.queueUrl(idle).waitTimeSeconds(0));
        }

        AtomicReference<QueueSeriesScrape> last = new AtomicReference<>(QueueSeriesScrape.of("?project=" + project));
        try {
            Eventually.await("the series settle", SETTLED, () -> {
                last.set(QueueSeriesScrape.of("?project=" + project));
                return Double.valueOf(3)
                                .equals(last.get().queue("pigeon_queue_messages_deleted_total", project, "sqs-jobs"))
                        && Double.valueOf(2)
                                .equals(last.get().queue("pigeon_queue_claims_empty_total", project, "sqs-idle"))
                        && Double.valueOf(1).equals(last.get().messages(project, "sqs-jobs", "claimed"));
            });
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + "\n" + last.get().text(), e);
        }
        QueueSeriesScrape scrape = last.get();
        assertEquals(5.0, scrape.queue("pigeon_queue_messages_posted_total", project, "sqs-jobs"));
        assertEquals(4.0, scrape.queue("pigeon_queue_messages_claimed_total", project, "sqs-jobs"));
        assertEquals(3.0, scrape.queue("pigeon_queue_messages_deleted_total", project, "sqs-jobs"));
        assertEquals(0.0, scrape.queue("pigeon_queue_claims_empty_total", project, "sqs-jobs"));
        assertEquals(0.0, scrape.messages(project, "sqs-jobs", "ready"));
        assertEquals(1.0, scrape.messages(project, "sqs-jobs", "claimed"));
        assertEquals(1.0, scrape.messages(project, "sqs-jobs", "delayed"));
        assertEquals(0.0, scrape.queue("pigeon_queue_messages_posted_total", project, "sqs-idle"));
        assertEquals(2.0, scrape.queue("pigeon_queue_claims_empty_total", project, "sqs-idle"));
    }
}
