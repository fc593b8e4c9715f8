package io.pigeon.clients;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.pigeon.testing.Api;
import io.pigeon.testing.Eventually;
import io.pigeon.testing.Sqs;
import io.quarkus.test.junit.QuarkusTest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.ListMessageMoveTasksResultEntry;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * Dead-letter queues through the AWS SDK for Java v2, as AWS documents them: a message received more than the
 * redrive policy's maxReceiveCount times moves to the dead-letter queue, and a message move task
 * (StartMessageMoveTask, without a destination) brings it back to the queue it came from.
 */
@QuarkusTest
@Tag(SqsJavaSdkMessageTest.MESSAGES)
class SqsJavaSdkRedriveTest {

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

    @Test
    void aMessageReceivedMaxReceiveCountTimesMovesToTheDeadLetterQueueAndAMoveTaskBringsItBack() {
        SqsQueue dead =
                new SqsQueue(sqs, sqs.createQueue(b -> b.queueName("dead")).queueUrl());
        String deadArn = arn(dead.url());
        String policy = "{\"deadLetterTargetArn\":\"" + deadArn + "\",\"maxReceiveCount\":2}";
        SqsQueue source = new SqsQueue(
                sqs,
                sqs.createQueue(b -> b.queueName("source").attributesWithStrings(Map.of("RedrivePolicy", policy)))
                        .queueUrl());
        String sent = sqs.sendMessage(b -> b.queueUrl(source.url()).messageBody("poison"))
                .messageId();

        List<Message> deliveries = new ArrayList<>();
        List<Message> deadLettered = new ArrayList<>();
        Eventually.await("the message in the dead-letter queue", Duration.ofSeconds(30), () -> {
            deliveries.addAll(sqs.receiveMessage(b -> b.queueUrl(source.url()).visibilityTimeout(1))
                    .messages());
            deadLettered.addAll(sqs.receiveMessage(b -> b.queueUrl(dead.url()).visibilityTimeout(0))
                    .messages());
            return !deadLettered.isEmpty();
        });
        assertEquals(2, deliveries.size(), "delivered maxReceiveCount times, then moved: " + deliveries);
        assertEquals("poison", deadLettered.get(0).body());
        assertEquals(sent, deadLettered.get(0).messageId(), "the same message, moved");

        String task = sqs.startMessageMoveTask(b -> b.sourceArn(deadArn)).taskHandle();
        assertFalse(task == null || task.isBlank());
        Message back = source.receiveOne(b -> b);
        assertEquals("poison", back.body());
        Eventually.await("the move task completed", Duration.ofSeconds(20), () -> {
            List<ListMessageMoveTasksResultEntry> tasks =
                    sqs.listMessageMoveTasks(b -> b.sourceArn(deadArn)).results();
            return !tasks.isEmpty() && "COMPLETED".equals(tasks.get(0).status());
        });
        assertEquals(0, dead.count(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES));
    }

    private String arn(String url) {
        return sqs.getQueueAttributes(b -> b.queueUrl(url).attributeNamesWithStrings("QueueArn"))
                .attributesAsStrings()
                .get("QueueArn");
    }
}
