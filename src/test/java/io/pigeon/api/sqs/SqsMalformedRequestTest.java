package io.pigeon.api.sqs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.testing.Api;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.parsing.Parser;
import io.restassured.response.Response;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Seeded malformed SQS requests in both protocols (odd and huge forms and JSON bodies, wrong types, repeated and
 * endless indexed members, bytes that are not UTF-8): each is answered with one of AWS's errors in the request's own
 * protocol, never a 5xx, and nothing is created.
 */
@QuarkusTest
class SqsMalformedRequestTest {

    private static final List<String> ACTIONS = List.of(
            "CreateQueue",
            "GetQueueUrl",
            "ListQueues",
            "DeleteQueue",
            "PurgeQueue",
            "GetQueueAttributes",
            "SetQueueAttributes",
            "TagQueue",
            "UntagQueue",
            "ListQueueTags",
            "ListDeadLetterSourceQueues",
            "NoSuchAction",
            "");

    private static final List<String> JSON_BODIES = List.of(
            "",
            "[]",
            "null",
            "\"x\"",
            "{",
            "{\"QueueName\": null}",
            "{\"QueueName\": [\"a\"]}",
            "{\"QueueName\": \"a\", \"QueueName\": \"b\"}",
            "{\"QueueName\": \"../x\"}",
            "{\"QueueName\": \"\"}",
            "{\"QueueName\": \"ok\", \"Attributes\": [1]}",
            "{\"QueueName\": \"ok\", \"Attributes\": {\"DelaySeconds\": 1}}",
            "{\"QueueName\": \"ok\", \"Attributes\": {\"DelaySeconds\": \"99999999999999999999\"}}",
            "{\"QueueName\": \"ok\", \"Attributes\": {\"RedrivePolicy\": \"{\\\"maxReceiveCount\\\": 1}\"}}",
            "{\"QueueName\": \"ok\", \"Attributes\": {\"RedriveAllowPolicy\": \"[]\"}}",
            "{\"QueueName\": \"ok\", \"tags\": {\"\": \"v\"}}",
            "{\"QueueUrl\": 5}",
            "{\"QueueUrl\": \"http://\"}",
            "{\"QueueUrl\": \"ftp://h/123456789012/q\"}",
            "{\"QueueUrl\": \"http://h/123456789012/q\", \"AttributeNames\": \"All\"}",
            "{\"QueueUrl\": \"http://h/123456789012/q\", \"TagKeys\": [1, 2]}",
            "{\"MaxResults\": \"ten\"}",
            "{\"MaxResults\": 1.5}",
            "{\"MaxResults\": 99999999999}",
            "{\"NextToken\": \"%%%\"}");

    private static final HttpClient HTTP =
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private final String project = Api.newProject();
    private final SqsClient sqs = new SqsClient(project);

    @Test
    void malformedRequestsAreAwsErrorsInTheirProtocolAndCreateNothing() {
        Random random = new Random(42);
        for (int i = 0; i < 240; i++) {
            String action = ACTIONS.get(random.nextInt(ACTIONS.size()));
            if (random.nextBoolean()) {
                String body = JSON_BODIES.get(random.nextInt(JSON_BODIES.size()));
                if (random.nextInt(8) == 0) {
                    body = "{\"QueueName\":" + "[".repeat(5000) + "]".repeat(5000) + "}";
                }
                Response answer = sqs.json(action, body);
                checkJson(answer, action + " " + body);
            } else {
                StringBuilder form = new StringBuilder("Action=").append(action).append("&Version=2012-11-05");
                switch (random.nextInt(7)) {
                    case 0 -> form.append("&QueueName=%E0%A4%A");
                    case 1 -> form.append("&QueueName=a&QueueName=b");
                    case 2 -> {
                        for (int k = 1; k <= 150; k++) {
                            form.append("&AttributeName.").append(k).append("=All");
                        }
                    }
                    case 3 -> form.append("&QueueName=x&Attribute.1.Name=DelaySeconds&Attribute.1.Value=-5");
                    case 4 -> form.append("&QueueUrl=http://h/123456789012/..&Tag.1.Key=aws:k&Tag.1.Value=v");
                    case 5 -> form.append("&").append("x=1&".repeat(2100));
                    default -> form.append("&MaxResults=0&QueueName=").append("q".repeat(5000));
                }
                byte[] bytes = form.toString().getBytes(StandardCharsets.UTF_8);
                if (random.nextInt(10) == 0) {
                    bytes[bytes.length - 1] = (byte) 0xff;
                }
                HttpResponse<String> answer = postForm(bytes);
                checkXml(answer, action);
            }
        }
        Response listed = sqs.json("ListQueues", "{}");
        assertEquals(200, listed.statusCode());
        assertEquals(
                List.of(),
                listed.then()
                        .parser(SqsClient.JSON_TYPE, Parser.JSON)
                        .extract()
                        .jsonPath()
                        .getList("QueueUrls"));
    }

    @Test
    void aListingPrefixNoQueueNameCanHoldListsNothingInsteadOfFailing() {
        // A NUL in QueueNamePrefix reached PostgreSQL (which refuses it in text) and was answered 500 InternalFailure.
        assertEquals(200, sqs.json("CreateQueue", "{\"QueueName\":\"a-1\"}").statusCode());
        for (String prefix : List.of("\\u0000", "a\\u0000", "a%", "a_", "\\u00e9", "a/", "a.")) {
            Response listed = sqs.json("ListQueues", "{\"QueueNamePrefix\":\"" + prefix + "\",\"MaxResults\":5}");
            checkJson(listed, "ListQueues " + prefix);
            assertEquals(200, listed.statusCode(), prefix + ": " + listed.asString());
            assertEquals(
                    List.of(),
                    listed.then()
                            .parser(SqsClient.JSON_TYPE, Parser.JSON)
                            .extract()
                            .jsonPath()
                            .getList("QueueUrls"),
                    prefix);
        }
        Response nul = sqs.query("ListQueues", "QueueNamePrefix", "\u0000");
        assertEquals(200, nul.statusCode(), nul.asString());
    }

    /**
     * Bytes that are not UTF-8, percent-escaped or raw, in a form, a query string or a JSON body, are refused as AWS
     * refuses what it cannot decode, never stored as U+FFFD (a body the client did not send, whose MD5 is not the one
     * it computed); a body with a character outside SQS's set is InvalidMessageContents; U+FFFD sent as itself is a
     * character like any other.
     */
    @Test
    void bytesThatAreNotUtf8AreRefusedAndNeverStoredAsReplacementCharacters() {
        String url = sqs.create("utf8");
        String encodedUrl = URLEncoder.encode(url, StandardCharsets.UTF_8);
        String form = "Action=SendMessage&Version=2012-11-05&QueueUrl=" + encodedUrl + "&MessageBody=";
        for (String escaped : List.of("%FF%FEhello", "a%C3%28b", "%ED%A0%80", "%F4%90%80%80", "%C0%AF")) {
            HttpResponse<String> answer = postForm((form + escaped).getBytes(StandardCharsets.US_ASCII));
            assertEquals(404, answer.statusCode(), escaped + ": " + answer.body());
            assertTrue(answer.body().contains("<Code>MalformedQueryString</Code>"), escaped + ": " + answer.body());
        }
        byte[] raw = (form + "ab?").getBytes(StandardCharsets.US_ASCII);
        raw[raw.length - 1] = (byte) 0xC3;
        HttpResponse<String> rawAnswer = postForm(raw);
        assertEquals(404, rawAnswer.statusCode(), rawAnswer.body());
        assertTrue(rawAnswer.body().contains("<Code>MalformedQueryString</Code>"), rawAnswer.body());

        Response inQueryString = sqs.signed().urlEncodingEnabled(false).get("/?" + form + "%C3%28");
        assertEquals(404, inQueryString.statusCode(), inQueryString.asString());
        assertTrue(inQueryString.asString().contains("<Code>MalformedQueryString</Code>"), inQueryString.asString());

        byte[] json = ("{\"QueueUrl\":\"" + url + "\",\"MessageBody\":\"a?b\"}").getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < json.length; i++) {
            if (json[i] == '?') {
                json[i] = (byte) 0xFF;
            }
        }
        Response jsonAnswer = sqs.signed()
                .contentType(SqsClient.JSON_TYPE)
                .header("X-Amz-Target", "AmazonSQS.SendMessage")
                .body(json)
                .post("/");
        assertEquals(400, jsonAnswer.statusCode(), jsonAnswer.asString());
        assertEquals("SerializationException;Sender", jsonAnswer.header("x-amzn-query-error"));

        HttpResponse<String> control = postForm((form + "a%01b").getBytes(StandardCharsets.US_ASCII));
        assertEquals(400, control.statusCode(), control.body());
        assertTrue(control.body().contains("<Code>InvalidMessageContents</Code>"), control.body());

        HttpResponse<String> replacement = postForm((form + "%EF%BF%BD+ok").getBytes(StandardCharsets.US_ASCII));
        assertEquals(200, replacement.statusCode(), replacement.body());
        Response received = sqs.json(
                "ReceiveMessage", "{\"QueueUrl\":\"" + url + "\",\"MaxNumberOfMessages\":10,\"VisibilityTimeout\":60}");
        List<String> bodies = received.then()
                .parser(SqsClient.JSON_TYPE, Parser.JSON)
                .extract()
                .jsonPath()
                .getList("Messages.Body");
        assertEquals(List.of("\uFFFD ok"), bodies, "only the message whose body was UTF-8 was stored");
    }

    private static void checkJson(Response answer, String request) {
        int status = answer.statusCode();
        assertTrue(status < 500, status + " for " + request + ": " + answer.asString());
        if (status >= 400) {
            assertTrue(answer.header("x-amzn-query-error") != null, request);
            assertTrue(answer.asString().startsWith("{\"__type\":\""), request + ": " + answer.asString());
        }
    }

    private HttpResponse<String> postForm(byte[] form) {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://localhost:" + RestAssured.port + "/"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .header(
                        "Authorization",
                        "AWS4-HMAC-SHA256 Credential=" + project + "/20261129/us-east-1/sqs/aws4_request, "
                                + "SignedHeaders=host, Signature=0000")
                .POST(HttpRequest.BodyPublishers.ofByteArray(form))
                .build();
        try {
            return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static void checkXml(HttpResponse<String> answer, String action) {
        int status = answer.statusCode();
        assertTrue(status < 500, status + " for " + action + ": " + answer.body());
        if (status >= 400) {
            assertTrue(answer.body().startsWith("<?xml version=\"1.0\"?><ErrorResponse"), answer.body());
        }
    }
}
