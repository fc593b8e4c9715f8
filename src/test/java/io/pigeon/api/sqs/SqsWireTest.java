package io.pigeon.api.sqs;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.emptyOrNullString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.matchesPattern;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.testing.Api;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.parsing.Parser;
import io.restassured.response.Response;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The SQS wire on the main port, spoken raw: both protocols' answers and errors in AWS's exact shapes (JSON
 * {@code __type} and {@code message} with {@code x-amzn-query-error}; XML {@code ErrorResponse}), the requests that are
 * not SQS left to Zaqar's answers, and the callers named by their access key id with authentication off.
 */
@QuarkusTest
class SqsWireTest {

    private static final String URL = "http://localhost:[0-9]+/[0-9]{12}/";
    private static final String XMLNS = "xmlns=\"http://queue.amazonaws.com/doc/2012-11-05/\"";

    private final SqsClient sqs = new SqsClient(Api.newProject());

    @Test
    void jsonCreateQueueAnswersTheQueueUrlOnTheHostTheCallerReached() {
        sqs.json("CreateQueue", "{\"QueueName\": \"orders\"}")
                .then()
                .parser(SqsClient.JSON_TYPE, Parser.JSON)
                .statusCode(200)
                .header("Content-Type", startsWith(SqsClient.JSON_TYPE))
                .header("x-amzn-RequestId", matchesPattern("[0-9a-f-]{36}"))
                .body("QueueUrl", matchesPattern(URL + "orders"));
    }

    @Test
    void queryCreateQueueAnswersAwsXml() {
        Response answer = sqs.query("CreateQueue", "QueueName", "invoices");
        answer.then().statusCode(200).header("Content-Type", startsWith("text/xml"));
        String requestId = answer.header("x-amzn-RequestId");
        String url = sqs.create("invoices");
        assertEquals(
                "<?xml version=\"1.0\"?><CreateQueueResponse " + XMLNS + "><CreateQueueResult><QueueUrl>" + url
                        + "</QueueUrl></CreateQueueResult><ResponseMetadata><RequestId>" + requestId
                        + "</RequestId></ResponseMetadata></CreateQueueResponse>",
                answer.asString());
    }

    @Test
    void aMissingQueueIsAwsNonExistentQueueInBothProtocols() {
        Response json = sqs.json("GetQueueUrl", "{\"QueueName\": \"nowhere\"}");
        json.then()
                .statusCode(400)
                .header("x-amzn-query-error", "AWS.SimpleQueueService.NonExistentQueue;Sender")
                .header("Content-Type", startsWith(SqsClient.JSON_TYPE));
        assertEquals(
                "{\"__type\":\"com.amazonaws.sqs#QueueDoesNotExist\",\"message\":\"The specified queue does not exist.\"}",
                json.asString());

        Response xml = sqs.query("GetQueueUrl", "QueueName", "nowhere");
        xml.then().statusCode(400).header("Content-Type", startsWith("text/xml"));
        assertEquals(
                "<?xml version=\"1.0\"?><ErrorResponse " + XMLNS + "><Error><Type>Sender</Type>"
                        + "<Code>AWS.SimpleQueueService.NonExistentQueue</Code>"
                        // AWS's query answer still names the WSDL version (the JSON one above no longer does).
                        + "<Message>The specified queue does not exist for this wsdl version.</Message><Detail/>"
                        + "</Error><RequestId>"
                        + xml.header("x-amzn-RequestId") + "</RequestId></ErrorResponse>",
                xml.asString());
    }

    @Test
    void unknownActionsMissingParametersAndBadVersionsAreAwsCommonErrors() {
        sqs.json("Fly", "{}")
                .then()
                .parser(SqsClient.JSON_TYPE, Parser.JSON)
                .statusCode(400)
                .header("x-amzn-query-error", "InvalidAction;Sender")
                .body("__type", equalTo("com.amazonaws.sqs#InvalidAction"));
        sqs.json("CreateQueue", "{}")
                .then()
                .parser(SqsClient.JSON_TYPE, Parser.JSON)
                .statusCode(400)
                .header("x-amzn-query-error", "MissingParameter;Sender")
                .body("message", equalTo("The request must contain the parameter QueueName."));
        sqs.json("CreateQueue", "{\"QueueName\": 7}")
                .then()
                .parser(SqsClient.JSON_TYPE, Parser.JSON)
                .statusCode(400)
                .header("x-amzn-query-error", "InvalidParameterValue;Sender");
        sqs.json("CreateQueue", "{\"QueueName\": ")
                .then()
                .parser(SqsClient.JSON_TYPE, Parser.JSON)
                .statusCode(400)
                .body("__type", equalTo("com.amazon.coral.service#SerializationException"));
        assertTrue(sqs.query("Fly").then().statusCode(400).extract().asString().contains("<Code>InvalidAction</Code>"));
        sqs.signed()
                .contentType("application/x-www-form-urlencoded")
                .formParam("Action", "ListQueues")
                .formParam("Version", "2008-01-01")
                .post("/")
                .then()
                .statusCode(400)
                .body(containsString("<Code>NoSuchVersion</Code>"));
        sqs.signed()
                .contentType("application/x-www-form-urlencoded")
                .body("Version=2012-11-05")
                .post("/")
                .then()
                .statusCode(400)
                .body(containsString("<Code>MissingAction</Code>"));
        sqs.signed()
                .contentType("application/x-www-form-urlencoded")
                .body("Action=ListQueues&QueueNamePrefix=%zz")
                .post("/")
                .then()
                .statusCode(404)
                .body(containsString("<Code>MalformedQueryString</Code>"));
    }

    @Test
    void aRequestWithoutCredentialsIsMissingAuthenticationToken() {
        given().contentType(SqsClient.JSON_TYPE)
                .header("X-Amz-Target", "AmazonSQS.ListQueues")
                .body(new byte[] {'{', '}'})
                .post("/")
                .then()
                .statusCode(403)
                .header("x-amzn-query-error", "MissingAuthenticationToken;Sender");
    }

    @Test
    void aPreSignedQueryStringNamesTheProjectToo() {
        String url = sqs.create("presigned");
        String account = url.split("/")[3];
        given().queryParam("Action", "GetQueueUrl")
                .queryParam("QueueName", "presigned")
                .queryParam("X-Amz-Credential", sqs.project() + "/20261129/us-east-1/sqs/aws4_request")
                .get("/")
                .then()
                .statusCode(200)
                .body(containsString("/" + account + "/presigned</QueueUrl>"));
    }

    @Test
    void zaqarAnswersOnTheRootStayAsTheyWere() {
        given().get("/").then().statusCode(300).body("versions", not(emptyOrNullString()));
        given().contentType("application/json").body("{}").post("/").then().statusCode(405);
        given().get("/v2/").then().statusCode(200);
    }

    @Test
    void aClientThatWaitsForContinueIsToldToSendItsBody() throws IOException {
        byte[] body = "{\"QueueName\": \"continued\"}".getBytes(StandardCharsets.UTF_8);
        try (Socket socket = new Socket("localhost", RestAssured.port)) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write(("POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: " + SqsClient.JSON_TYPE
                            + "\r\nX-Amz-Target: AmazonSQS.CreateQueue\r\nAuthorization: AWS4-HMAC-SHA256 Credential="
                            + sqs.project() + "/20261129/us-east-1/sqs/aws4_request\r\nExpect: 100-continue\r\n"
                            + "Content-Length: " + body.length + "\r\n\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            InputStream in = socket.getInputStream();
            assertTrue(head(in).startsWith("HTTP/1.1 100"), "no 100 Continue before the body was sent");
            out.write(body);
            out.flush();
            assertTrue(head(in).startsWith("HTTP/1.1 200"));
        }
    }

    /** One answer's head, up to its empty line. */
    private static String head(InputStream in) throws IOException {
        StringBuilder head = new StringBuilder();
        while (head.indexOf("\r\n\r\n") < 0) {
            int b = in.read();
            if (b < 0) {
                break;
            }
            head.append((char) b);
        }
        return head.toString();
    }
}
