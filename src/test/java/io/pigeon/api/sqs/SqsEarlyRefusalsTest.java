package io.pigeon.api.sqs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.testing.Api;
import io.pigeon.testing.RawHttp;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import java.net.URI;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.retry.RetryMode;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.SqsException;

/**
 * The shared HTTP layer's refusals made before the SQS door reads a request (a body past
 * {@code pigeon.max-request-body}: 413; a host not served: 421) reach an SQS client as AWS's errors in its own protocol
 * (JSON 1.0 with {@code x-amzn-query-error}, or the query protocol's XML), as the door decides from the request's
 * method, path and headers; a Zaqar request still reads the error document. The late body (408) is
 * {@code SlowClientsTest}'s, under its short deadlines.
 */
@QuarkusTest
class SqsEarlyRefusalsTest {

    /** pigeon.max-request-body in the test settings (the shipped 1 MiB). */
    private static final int BOUND = 1_048_576;

    private static final String JSON_TYPE = "application/x-amz-json-1.0";

    @TestHTTPResource("/")
    URL endpoint;

    private final String project = Api.newProject();

    private static String signature(String project) {
        return "AWS4-HMAC-SHA256 Credential=" + project + "/20261129/us-east-1/sqs/aws4_request, "
                + "SignedHeaders=host;x-amz-date, Signature=0000";
    }

    /** A request head declaring a body past the bound, sent without the body: it is refused unread. */
    private RawHttp.Answer oversized(String host, String path, String contentType, String extra) {
        return RawHttp.exchange(
                RestAssured.port,
                "POST " + path + " HTTP/1.1\r\nHost: " + host + "\r\nContent-Type: " + contentType + "\r\n" + extra
                        + "Authorization: " + signature(project) + "\r\nContent-Length: " + (BOUND + 1)
                        + "\r\nConnection: close\r\n\r\n");
    }

    private static String local() {
        return "localhost:" + RestAssured.port;
    }

    @Test
    void anOversizedJsonRequestReadsRequestEntityTooLarge() {
        RawHttp.Answer answer = oversized(local(), "/", JSON_TYPE, "X-Amz-Target: AmazonSQS.SendMessage\r\n");
        assertEquals(413, answer.status(), answer.toString());
        assertEquals("RequestEntityTooLargeException;Sender", answer.header("x-amzn-query-error"), answer.toString());
        assertTrue(answer.header("content-type").startsWith(JSON_TYPE), answer.toString());
        assertTrue(
                answer.body().contains("\"__type\":\"com.amazon.coral.service#RequestEntityTooLargeException\""),
                answer.toString());
        assertTrue(answer.body().contains("1048576 bytes"), answer.toString());
        assertTrue(answer.header("x-amzn-requestid") != null, answer.toString());
    }

    @Test
    void anOversizedQueryRequestReadsTheXmlError() {
        RawHttp.Answer answer = oversized(local(), "/", "application/x-www-form-urlencoded; charset=utf-8", "");
        assertEquals(413, answer.status(), answer.toString());
        assertTrue(answer.header("content-type").startsWith("text/xml"), answer.toString());
        assertTrue(
                answer.body().contains("<Code>RequestEntityTooLargeException</Code>")
                        && answer.body().contains("<ErrorResponse"),
                answer.toString());
    }

    @Test
    void aStreamedBodyPastTheBoundReadsTheSqsErrorToo() {
        byte[] body =
                ("{\"QueueUrl\":\"x\",\"MessageBody\":\"" + "a".repeat(BOUND) + "\"}").getBytes(StandardCharsets.UTF_8);
        RawHttp.Answer answer = RawHttp.sendChunked(
                RestAssured.port,
                "POST",
                "/",
                Map.of(
                        "Content-Type",
                        JSON_TYPE,
                        "X-Amz-Target",
                        "AmazonSQS.SendMessage",
                        "Authorization",
                        signature(project)),
                body);
        assertEquals(413, answer.status(), answer.toString());
        assertEquals("RequestEntityTooLargeException;Sender", answer.header("x-amzn-query-error"), answer.toString());
    }

    /** The SDK reads the code and the status, and does not retry a client's fault into a transport error. */
    @Test
    void theJavaSdkReportsTheCode() {
        try (SqsClient sqs = SqsClient.builder()
                .endpointOverride(URI.create(endpoint.toString()))
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(project, "unused")))
                .httpClient(UrlConnectionHttpClient.create())
                .overrideConfiguration(o -> o.retryStrategy(RetryMode.STANDARD))
                .build()) {
            String url = sqs.createQueue(create -> create.queueName("big")).queueUrl();
            SqsException refused = assertThrows(
                    SqsException.class,
                    () -> sqs.sendMessageBatch(send -> send.queueUrl(url)
                            .entries(entry -> entry.id("a").messageBody("a".repeat(BOUND / 2)), entry -> entry.id("b")
                                    .messageBody("b".repeat(BOUND / 2)))));
            assertEquals(413, refused.statusCode());
            assertEquals(
                    "RequestEntityTooLargeException", refused.awsErrorDetails().errorCode());
        }
    }

    @Test
    void aHostNotServedReadsAnSqsErrorOnBothWiresAndZaqarKeepsItsDocument() {
        String evil = "evil.example:" + RestAssured.port;
        String form = "Action=ListQueues&Version=2012-11-05";
        RawHttp.Answer json = RawHttp.exchange(
                RestAssured.port,
                "POST / HTTP/1.1\r\nHost: " + evil + "\r\nContent-Type: " + JSON_TYPE
                        + "\r\nX-Amz-Target: AmazonSQS.ListQueues\r\nAuthorization: " + signature(project)
                        + "\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}");
        assertEquals(421, json.status(), json.toString());
        assertEquals("MisdirectedRequest;Sender", json.header("x-amzn-query-error"), json.toString());
        assertTrue(json.body().contains("evil.example"), json.toString());
        assertFalse(json.isErrorDocument(), json.toString());

        RawHttp.Answer query = RawHttp.exchange(
                RestAssured.port,
                "POST / HTTP/1.1\r\nHost: " + evil + "\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                        + "Authorization: " + signature(project) + "\r\nContent-Length: " + form.length()
                        + "\r\nConnection: close\r\n\r\n" + form);
        assertEquals(421, query.status(), query.toString());
        assertTrue(query.body().contains("<Code>MisdirectedRequest</Code>"), query.toString());

        RawHttp.Answer zaqar = RawHttp.exchange(
                RestAssured.port,
                "GET /v2/queues HTTP/1.1\r\nHost: " + evil + "\r\nX-Project-Id: " + project
                        + "\r\nConnection: close\r\n\r\n");
        assertEquals(421, zaqar.status(), zaqar.toString());
        assertTrue(zaqar.isErrorDocument(), zaqar.toString());
        // A GET of / without Action is Zaqar's (its versions document): its refusal stays Zaqar's too.
        RawHttp.Answer root =
                RawHttp.exchange(RestAssured.port, "GET / HTTP/1.1\r\nHost: " + evil + "\r\nConnection: close\r\n\r\n");
        assertTrue(root.isErrorDocument(), root.toString());
    }
}
