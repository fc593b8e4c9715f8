package io.pigeon.clients;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.pigeon.testing.Api;
import io.pigeon.testing.Eventually;
import io.pigeon.testing.Sqs;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * One queue, both APIs: what a Zaqar client posts (through Zaqar's HTTP API, or with python-zaqarclient) the AWS SDK
 * for Java v2 receives with the same body (a JSON string as that string, other JSON as its compact text), and what
 * the SDK sends a Zaqar client reads as a JSON string. In auth mode none the access key id and X-Project-Id name the
 * same project.
 */
@QuarkusTest
@Tag(SqsJavaSdkMessageTest.MESSAGES)
class SqsCrossApiTest {

    private final String project = Api.newProject();
    private SqsClient sqs;
    private String url;

    @BeforeEach
    void openClientAndQueue() {
        sqs = Sqs.clientFor(project);
        url = sqs.createQueue(b -> b.queueName("shared")).queueUrl();
    }

    @AfterEach
    void closeClient() {
        sqs.close();
    }

    @Test
    void zaqarPostsAreReceivedThroughSqsWithTheSameBody() {
        post("{\"messages\": [{\"ttl\": 300, \"body\": \"plain text\"}]}");
        assertEquals(List.of("plain text"), receiveBodies(1));

        post("{\"messages\": [{\"ttl\": 300, \"body\": {\"order\": 7, \"items\": [\"a\", \"b\"]}}]}");
        assertEquals(List.of("{\"order\":7,\"items\":[\"a\",\"b\"]}"), receiveBodies(1));

        post("{\"messages\": [{\"ttl\": 300, \"body\": 42}, {\"ttl\": 300, \"body\": true}]}");
        assertEquals(List.of("42", "true"), receiveBodies(2).stream().sorted().toList());
    }

    @Test
    void sqsSendsAreReadThroughZaqarAsJsonStrings() {
        sqs.sendMessage(b -> b.queueUrl(url).messageBody("{\"looks\": \"like json\"}"));
        Response listed = Api.as(project).queryParam("echo", true).get("/v2/queues/shared/messages");
        assertEquals(200, listed.statusCode(), listed.asString());
        // A JSON string (not an object) in Zaqar's document; getList without a type keeps each value as parsed.
        List<Object> bodies = listed.jsonPath().getList("messages.body");
        assertEquals(List.of("{\"looks\": \"like json\"}"), bodies, listed.asString());
    }

    @Test
    void aMessagePostedWithPythonZaqarClientIsReceivedWithTheSameBody() throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/python3")), "no /usr/bin/python3");
        Process probe = new ProcessBuilder("/usr/bin/python3", "-c", "import boto3, zaqarclient")
                .redirectErrorStream(true)
                .start();
        assumeTrue(
                probe.waitFor(60, TimeUnit.SECONDS) && probe.exitValue() == 0,
                "python3-zaqarclient and python3-boto3 are not installed");
        SqsClientScenarioTest.run(
                "/usr/bin/python3",
                "src/test/clients/sqs_cross_api.py",
                SqsClientScenarioTest.pigeonUrl(),
                "post",
                project,
                "shared",
                "\"sent by python-zaqarclient \\u00e9\"");
        assertEquals(List.of("sent by python-zaqarclient é"), receiveBodies(1));
    }

    private void post(String document) {
        Response posted =
                Api.as(project).contentType(ContentType.JSON).body(document).post("/v2/queues/shared/messages");
        assertEquals(201, posted.statusCode(), posted.asString());
    }

    /** Receives and deletes {@code expected} messages; their bodies. */
    private List<String> receiveBodies(int expected) {
        List<Message> got = new ArrayList<>();
        Eventually.await(expected + " messages through SQS", Duration.ofSeconds(20), () -> {
            got.addAll(sqs.receiveMessage(
                            b -> b.queueUrl(url).maxNumberOfMessages(10).waitTimeSeconds(1))
                    .messages());
            return got.size() >= expected;
        });
        assertEquals(expected, got.size(), got.toString());
        got.forEach(m -> sqs.deleteMessage(b -> b.queueUrl(url).receiptHandle(m.receiptHandle())));
        return got.stream().map(Message::body).toList();
    }
}
