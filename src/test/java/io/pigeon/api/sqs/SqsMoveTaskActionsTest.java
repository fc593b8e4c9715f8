package io.pigeon.api.sqs;

import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.testing.Api;
import io.pigeon.testing.Eventually;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.parsing.Parser;
import io.restassured.path.json.JsonPath;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * StartMessageMoveTask, ListMessageMoveTasks and CancelMessageMoveTask on the wire, both protocols: AWS's errors for
 * a source that is not a dead-letter queue, another account's ARN, a rate or a count out of bounds, a second running
 * task, a handle that is forged or another project's; and a task that runs, is listed with its progress, and is
 * cancelled by its handle. Refused requests start nothing.
 */
@QuarkusTest
class SqsMoveTaskActionsTest {

    private final SqsClient sqs = new SqsClient(Api.newProject());

    private JsonPath json(SqsClient client, String action, String body) {
        return client.json(action, body)
                .then()
                .parser(SqsClient.JSON_TYPE, Parser.JSON)
                .statusCode(200)
                .extract()
                .jsonPath();
    }

    private String error(SqsClient client, String action, String body) {
        return client.json(action, body).then().statusCode(400).extract().header("x-amzn-query-error");
    }

    private String arn(String url) {
        return json(sqs, "GetQueueAttributes", "{\"QueueUrl\": \"" + url + "\", \"AttributeNames\": [\"QueueArn\"]}")
                .getString("Attributes.QueueArn");
    }

    /** A dead-letter queue "dlq" of queue "work"; the ARNs of both. */
    private List<String> deadLetterPair() {
        String dlq = arn(sqs.create("dlq"));
        String policy = "{\\\"deadLetterTargetArn\\\":\\\"" + dlq + "\\\",\\\"maxReceiveCount\\\":3}";
        String work = json(
                        sqs,
                        "CreateQueue",
                        "{\"QueueName\": \"work\", \"Attributes\": {\"RedrivePolicy\": \"" + policy + "\"}}")
                .getString("QueueUrl");
        return List.of(dlq, arn(work));
    }

    private List<Map<String, Object>> listed(String sourceArn, int max) {
        return json(sqs, "ListMessageMoveTasks", "{\"SourceArn\": \"" + sourceArn + "\", \"MaxResults\": " + max + "}")
                .getList("Results");
    }

    @Test
    void badRequestsAreAwsErrorsAndStartNothing() {
        List<String> pair = deadLetterPair();
        String dlq = pair.get(0);
        String plain = arn(sqs.create("plain"));
        assertEquals(
                "AWS.SimpleQueueService.UnsupportedOperation;Sender",
                error(sqs, "StartMessageMoveTask", "{\"SourceArn\": \"" + plain + "\"}"),
                "a queue no redrive policy names is not a dead-letter queue");
        String otherAccount = dlq.replaceAll(":[0-9]{12}:", ":000000000000:");
        assertEquals(
                "ResourceNotFoundException;Sender",
                error(sqs, "StartMessageMoveTask", "{\"SourceArn\": \"" + otherAccount + "\"}"));
        assertEquals(
                "ResourceNotFoundException;Sender",
                error(sqs, "StartMessageMoveTask", "{\"SourceArn\": \"" + dlq.replace(":dlq", ":gone") + "\"}"));
        assertEquals(
                "ResourceNotFoundException;Sender",
                error(
                        sqs,
                        "StartMessageMoveTask",
                        "{\"SourceArn\": \"" + dlq + "\", \"DestinationArn\": \"" + dlq.replace(":dlq", ":gone")
                                + "\"}"));
        assertEquals(
                "InvalidParameterValue;Sender", error(sqs, "StartMessageMoveTask", "{\"SourceArn\": \"not-an-arn\"}"));
        sqs.json("StartMessageMoveTask", "{\"SourceArn\": \"" + dlq + "\", \"MaxNumberOfMessagesPerSecond\": 501}")
                .then()
                .statusCode(400)
                .header("x-amzn-query-error", "InvalidParameterValue;Sender")
                .body(containsString("MaxNumberOfMessagesPerSecond"));
        assertEquals(
                "InvalidParameterValue;Sender",
                error(
                        sqs,
                        "StartMessageMoveTask",
                        "{\"SourceArn\": \"" + dlq + "\", \"MaxNumberOfMessagesPerSecond\": 0}"));
        assertEquals("MissingParameter;Sender", error(sqs, "StartMessageMoveTask", "{}"));
        assertEquals(
                "InvalidParameterValue;Sender",
                error(sqs, "ListMessageMoveTasks", "{\"SourceArn\": \"" + dlq + "\", \"MaxResults\": 11}"));
        assertEquals(
                "ResourceNotFoundException;Sender",
                error(sqs, "CancelMessageMoveTask", "{\"TaskHandle\": \"AQEB6nR4HzlvZQ\"}"));
        assertEquals(List.of(), listed(dlq, 10), "nothing started");
    }

    @Test
    void aTaskRunsIsListedAndIsCancelledByItsHandleOnlyByItsProject() {
        List<String> pair = deadLetterPair();
        String dlq = pair.get(0);
        String work = pair.get(1);
        String dlqUrl = sqs.create("dlq");
        for (int i = 0; i < 30; i++) {
            json(sqs, "SendMessage", "{\"QueueUrl\": \"" + dlqUrl + "\", \"MessageBody\": \"m" + i + "\"}");
        }
        // One message a second, to a named destination: the task runs for half a minute unless cancelled.
        String started = sqs.query(
                        "StartMessageMoveTask",
                        "SourceArn",
                        dlq,
                        "DestinationArn",
                        work,
                        "MaxNumberOfMessagesPerSecond",
                        "1")
                .then()
                .statusCode(200)
                .extract()
                .asString();
        String handle = started.replaceAll("(?s).*<TaskHandle>([^<]+)</TaskHandle>.*", "$1");
        assertFalse(handle.equals(started), started);

        assertEquals(
                "AWS.SimpleQueueService.UnsupportedOperation;Sender",
                error(sqs, "StartMessageMoveTask", "{\"SourceArn\": \"" + dlq + "\"}"),
                "one running task per source");
        SqsClient other = new SqsClient(Api.newProject());
        assertEquals(
                "ResourceNotFoundException;Sender",
                error(other, "CancelMessageMoveTask", "{\"TaskHandle\": \"" + handle + "\"}"),
                "a handle names a task only for its own project");

        Map<String, Object> running = listed(dlq, 1).get(0);
        assertEquals("RUNNING", running.get("Status"));
        assertEquals(handle, running.get("TaskHandle"));
        assertEquals(dlq, running.get("SourceArn"));
        assertEquals(work, running.get("DestinationArn"));
        assertEquals(1, running.get("MaxNumberOfMessagesPerSecond"));
        // Moved so far plus what the queue holds now: a message may move between the two reads.
        int toMove = ((Number) running.get("ApproximateNumberOfMessagesToMove")).intValue();
        assertTrue(toMove >= 28 && toMove <= 30, "about the 30 messages: " + toMove);
        assertTrue(((Number) running.get("StartedTimestamp")).longValue() > 1_700_000_000_000L, running.toString());
        String xml = sqs.query("ListMessageMoveTasks", "SourceArn", dlq)
                .then()
                .statusCode(200)
                .extract()
                .asString();
        assertTrue(
                xml.contains("<ListMessageMoveTasksResult><ListMessageMoveTasksResultEntry><TaskHandle>" + handle
                        + "</TaskHandle><Status>RUNNING</Status>"),
                xml);

        long moved = json(sqs, "CancelMessageMoveTask", "{\"TaskHandle\": \"" + handle + "\"}")
                .getLong("ApproximateNumberOfMessagesMoved");
        assertTrue(moved < 30, "cancelled before the end: " + moved);
        Map<String, Object> cancelled = listed(dlq, 10).get(0);
        assertEquals("CANCELLED", cancelled.get("Status"));
        assertNull(cancelled.get("TaskHandle"), "a handle is shown only while the task runs");
        assertEquals(
                "AWS.SimpleQueueService.UnsupportedOperation;Sender",
                error(sqs, "CancelMessageMoveTask", "{\"TaskHandle\": \"" + handle + "\"}"),
                "only a running task is cancelled");
        Eventually.await(
                "a new task may start once the last one ended",
                Duration.ofSeconds(10),
                () -> sqs.json(
                                        "StartMessageMoveTask",
                                        "{\"SourceArn\": \"" + dlq + "\", \"DestinationArn\": \"" + work + "\"}")
                                .statusCode()
                        == 200);
        Eventually.await("the second task completed", Duration.ofSeconds(30), () -> "COMPLETED"
                .equals(listed(dlq, 1).get(0).get("Status")));
        assertEquals(2, listed(dlq, 10).size());
    }

    @Test
    void aTaskStartedThroughZaqarIsListedAndCancelledThroughSqs() {
        List<String> pair = deadLetterPair();
        String dlq = pair.get(0);
        String dlqUrl = sqs.create("dlq");
        for (int i = 0; i < 30; i++) {
            json(sqs, "SendMessage", "{\"QueueUrl\": \"" + dlqUrl + "\", \"MessageBody\": \"m" + i + "\"}");
        }
        String location = Api.as(sqs.project())
                .contentType(ContentType.JSON)
                .body("{\"target\": \"work\", \"rate\": 1}")
                .post("/v2/queues/dlq/redrive")
                .then()
                .statusCode(201)
                .extract()
                .header("Location");

        Map<String, Object> running = listed(dlq, 1).get(0);
        assertEquals("RUNNING", running.get("Status"));
        json(sqs, "CancelMessageMoveTask", "{\"TaskHandle\": \"" + running.get("TaskHandle") + "\"}");
        Api.as(sqs.project()).get(location).then().statusCode(200).body("state", equalTo("cancelled"));
    }
}
