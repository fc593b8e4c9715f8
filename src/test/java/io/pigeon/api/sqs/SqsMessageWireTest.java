package io.pigeon.api.sqs;

import static org.hamcrest.Matchers.containsString;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.testing.Api;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The message actions on the raw wire, as the SDKs that speak the query protocol (boto3 1.26, the AWS CLI 2.9) send
 * and read them: {@code MessageAttribute.N.Name/Value.*} in, AWS's XML out ({@code MD5OfMessageBody}, {@code
 * <Message>} with flattened {@code Attribute} and {@code MessageAttribute}, base64 binary values), batch entries
 * {@code <Action>RequestEntry.N.*} answered per entry ({@code <Action>ResultEntry}, {@code BatchResultErrorEntry}),
 * and the batch rules refused whole; JSON 1.0 where its shape differs (an empty receive is {@code {}}). The digests
 * are computed here as AWS documents them, not by Pigeon's code.
 */
@QuarkusTest
class SqsMessageWireTest {

    private static final String XMLNS = "xmlns=\"http://queue.amazonaws.com/doc/2012-11-05/\"";

    private final SqsClient sqs = new SqsClient(Api.newProject());

    @Test
    void querySendMessageAnswersItsIdAndDigestsInAwsXml() {
        String url = sqs.create("sent");
        String body = "a <body> & \"quotes\" \u00e9";
        Response answer = sqs.queryAt(
                path(url),
                "SendMessage",
                "MessageBody",
                body,
                "MessageAttribute.1.Name",
                "kind",
                "MessageAttribute.1.Value.DataType",
                "String",
                "MessageAttribute.1.Value.StringValue",
                "invoice",
                "MessageAttribute.2.Name",
                "blob",
                "MessageAttribute.2.Value.DataType",
                "Binary",
                "MessageAttribute.2.Value.BinaryValue",
                "AAEC+v8=");
        answer.then().statusCode(200);
        String expected = "<\\?xml version=\"1.0\"\\?><SendMessageResponse " + XMLNS + "><SendMessageResult>"
                + "<MessageId>[^<]+</MessageId><MD5OfMessageBody>" + md5(body) + "</MD5OfMessageBody>"
                + "<MD5OfMessageAttributes>"
                + attributesMd5(List.of(
                        new Attribute("blob", "Binary", null, new byte[] {0, 1, 2, (byte) 250, (byte) 255}),
                        new Attribute("kind", "String", "invoice", null)))
                + "</MD5OfMessageAttributes></SendMessageResult><ResponseMetadata><RequestId>"
                + answer.header("x-amzn-RequestId") + "</RequestId></ResponseMetadata></SendMessageResponse>";
        assertTrue(answer.asString().matches(expected), answer.asString());
    }

    @Test
    void queryReceiveMessageAnswersTheMessageWithTheAttributesAskedFor() {
        String url = sqs.create("received");
        String body = "line one\r\nline <two> & more";
        String sent = sqs.json(
                        "SendMessage",
                        "{\"QueueUrl\": \"" + url + "\", \"MessageBody\": \"line one\\r\\nline <two> & more\","
                                + " \"MessageAttributes\": {\"blob\": {\"DataType\": \"Binary.raw\","
                                + " \"BinaryValue\": \"AAEC+v8=\"}, \"n\": {\"DataType\": \"Number\","
                                + " \"StringValue\": \"42\"}}}")
                .then()
                .statusCode(200)
                .extract()
                .path("MessageId");

        Response answer = sqs.queryAt(
                path(url),
                "ReceiveMessage",
                "AttributeName.1",
                "ApproximateReceiveCount",
                "MessageSystemAttributeName.1",
                "SenderId",
                "MessageAttributeName.1",
                "All",
                "VisibilityTimeout",
                "60");
        answer.then().statusCode(200);
        String xml = answer.asString();
        String attributesMd5 = attributesMd5(List.of(
                new Attribute("blob", "Binary.raw", null, new byte[] {0, 1, 2, (byte) 250, (byte) 255}),
                new Attribute("n", "Number", "42", null)));
        String expected = "<\\?xml version=\"1.0\"\\?><ReceiveMessageResponse " + XMLNS + "><ReceiveMessageResult>"
                + "<Message><MessageId>" + sent + "</MessageId><ReceiptHandle>[A-Za-z0-9_=-]+</ReceiptHandle>"
                + "<MD5OfBody>" + md5(body) + "</MD5OfBody>"
                + "<Body>line one&#xD;\nline &lt;two&gt; &amp; more</Body>"
                + "<Attribute><Name>ApproximateReceiveCount</Name><Value>1</Value></Attribute>"
                + "<Attribute><Name>SenderId</Name><Value>[^<]+</Value></Attribute>"
                + "<MD5OfMessageAttributes>" + attributesMd5 + "</MD5OfMessageAttributes>"
                + "<MessageAttribute><Name>blob</Name><Value><BinaryValue>AAEC\\+v8=</BinaryValue>"
                + "<DataType>Binary.raw</DataType></Value></MessageAttribute>"
                + "<MessageAttribute><Name>n</Name><Value><StringValue>42</StringValue>"
                + "<DataType>Number</DataType></Value></MessageAttribute>"
                + "</Message></ReceiveMessageResult><ResponseMetadata>.*";
        assertTrue(xml.matches(expected), xml);

        // Invisible now: an empty receive is an empty result in XML and {} in JSON.
        assertTrue(
                sqs.queryAt(path(url), "ReceiveMessage")
                        .asString()
                        .contains(
                                "<ReceiveMessageResponse " + XMLNS + "><ReceiveMessageResult></ReceiveMessageResult>"),
                "an empty receive");
        assertEquals(
                "{}",
                sqs.json("ReceiveMessage", "{\"QueueUrl\": \"" + url + "\"}")
                        .then()
                        .statusCode(200)
                        .extract()
                        .asString());
    }

    @Test
    void queryBatchesAnswerEachEntry() {
        String url = sqs.create("batches");
        Response sent = sqs.queryAt(
                path(url),
                "SendMessageBatch",
                "SendMessageBatchRequestEntry.1.Id",
                "a",
                "SendMessageBatchRequestEntry.1.MessageBody",
                "first",
                "SendMessageBatchRequestEntry.2.Id",
                "late",
                "SendMessageBatchRequestEntry.2.MessageBody",
                "too late",
                "SendMessageBatchRequestEntry.2.DelaySeconds",
                "901",
                "SendMessageBatchRequestEntry.3.Id",
                "b",
                "SendMessageBatchRequestEntry.3.MessageBody",
                "second");
        sent.then().statusCode(200);
        String xml = sent.asString();
        assertTrue(
                xml.matches(
                        ".*<SendMessageBatchResult><SendMessageBatchResultEntry><Id>a</Id><MessageId>[^<]+</MessageId>"
                                + "<MD5OfMessageBody>" + md5("first")
                                + "</MD5OfMessageBody></SendMessageBatchResultEntry>"
                                + "<SendMessageBatchResultEntry><Id>b</Id><MessageId>[^<]+</MessageId><MD5OfMessageBody>"
                                + md5("second") + "</MD5OfMessageBody></SendMessageBatchResultEntry>"
                                + "<BatchResultErrorEntry><Id>late</Id><SenderFault>true</SenderFault>"
                                + "<Code>InvalidParameterValue</Code><Message>[^<]*DelaySeconds[^<]*</Message>"
                                + "</BatchResultErrorEntry></SendMessageBatchResult>.*"),
                xml);

        List<String> handles =
                handles(sqs.queryAt(path(url), "ReceiveMessage", "MaxNumberOfMessages", "10", "VisibilityTimeout", "60")
                        .asString());
        assertEquals(2, handles.size(), "both sent messages, each received once");

        Response changed = sqs.queryAt(
                path(url),
                "ChangeMessageVisibilityBatch",
                "ChangeMessageVisibilityBatchRequestEntry.1.Id",
                "one",
                "ChangeMessageVisibilityBatchRequestEntry.1.ReceiptHandle",
                handles.get(0),
                "ChangeMessageVisibilityBatchRequestEntry.1.VisibilityTimeout",
                "120",
                "ChangeMessageVisibilityBatchRequestEntry.2.Id",
                "forged",
                "ChangeMessageVisibilityBatchRequestEntry.2.ReceiptHandle",
                "not-a-handle",
                "ChangeMessageVisibilityBatchRequestEntry.2.VisibilityTimeout",
                "0");
        assertTrue(
                changed.asString()
                        .contains("<ChangeMessageVisibilityBatchResult><ChangeMessageVisibilityBatchResultEntry><Id>one"
                                + "</Id></ChangeMessageVisibilityBatchResultEntry><BatchResultErrorEntry><Id>forged</Id>"
                                + "<SenderFault>true</SenderFault><Code>ReceiptHandleIsInvalid</Code>"),
                changed.asString());

        Response deleted = sqs.queryAt(
                path(url),
                "DeleteMessageBatch",
                "DeleteMessageBatchRequestEntry.1.Id",
                "one",
                "DeleteMessageBatchRequestEntry.1.ReceiptHandle",
                handles.get(0),
                "DeleteMessageBatchRequestEntry.2.Id",
                "two",
                "DeleteMessageBatchRequestEntry.2.ReceiptHandle",
                handles.get(1));
        assertTrue(
                deleted.asString()
                        .contains("<DeleteMessageBatchResult><DeleteMessageBatchResultEntry><Id>one</Id>"
                                + "</DeleteMessageBatchResultEntry><DeleteMessageBatchResultEntry><Id>two</Id>"
                                + "</DeleteMessageBatchResultEntry></DeleteMessageBatchResult>"),
                deleted.asString());
        assertEquals(
                "{}",
                sqs.json("ReceiveMessage", "{\"QueueUrl\": \"" + url + "\", \"VisibilityTimeout\": 0}")
                        .asString(),
                "both deleted");
    }

    @Test
    void singleMessageActionsInTheQueryProtocol() {
        String url = sqs.create("single");
        sqs.queryAt(path(url), "SendMessage", "MessageBody", "one").then().statusCode(200);
        String handle = handles(sqs.queryAt(path(url), "ReceiveMessage", "VisibilityTimeout", "60")
                        .asString())
                .get(0);
        Response changed =
                sqs.queryAt(path(url), "ChangeMessageVisibility", "ReceiptHandle", handle, "VisibilityTimeout", "0");
        assertEquals(
                "<?xml version=\"1.0\"?><ChangeMessageVisibilityResponse " + XMLNS + "><ResponseMetadata><RequestId>"
                        + changed.header("x-amzn-RequestId")
                        + "</RequestId></ResponseMetadata></ChangeMessageVisibilityResponse>",
                changed.asString());
        String again =
                handles(sqs.queryAt(path(url), "ReceiveMessage").asString()).get(0);
        sqs.queryAt(path(url), "DeleteMessage", "ReceiptHandle", again)
                .then()
                .statusCode(200)
                .body(containsString("<DeleteMessageResponse " + XMLNS + "><ResponseMetadata>"));
        Response forged = sqs.queryAt(path(url), "DeleteMessage", "ReceiptHandle", "forged");
        forged.then().statusCode(404);
        assertTrue(
                forged.asString().contains("<Type>Sender</Type><Code>ReceiptHandleIsInvalid</Code>"),
                forged.asString());
    }

    @Test
    void batchRulesRefuseTheWholeRequest() {
        String url = sqs.create("rules");
        List<String> eleven = new ArrayList<>();
        for (int i = 1; i <= 11; i++) {
            eleven.addAll(List.of(
                    "SendMessageBatchRequestEntry." + i + ".Id",
                    "e" + i,
                    "SendMessageBatchRequestEntry." + i + ".MessageBody",
                    "m" + i));
        }
        assertRefused(
                sqs.queryAt(path(url), "SendMessageBatch", eleven.toArray(String[]::new)),
                "AWS.SimpleQueueService.TooManyEntriesInBatchRequest");
        assertRefused(
                sqs.queryAt(
                        path(url),
                        "DeleteMessageBatch",
                        "DeleteMessageBatchRequestEntry.1.Id",
                        "x",
                        "DeleteMessageBatchRequestEntry.1.ReceiptHandle",
                        "h1",
                        "DeleteMessageBatchRequestEntry.2.Id",
                        "x",
                        "DeleteMessageBatchRequestEntry.2.ReceiptHandle",
                        "h2"),
                "AWS.SimpleQueueService.BatchEntryIdsNotDistinct");
        assertRefused(
                sqs.queryAt(
                        path(url),
                        "SendMessageBatch",
                        "SendMessageBatchRequestEntry.1.Id",
                        "not valid!",
                        "SendMessageBatchRequestEntry.1.MessageBody",
                        "m"),
                "AWS.SimpleQueueService.InvalidBatchEntryId");
        assertRefused(
                sqs.queryAt(
                        path(url),
                        "SendMessageBatch",
                        "SendMessageBatchRequestEntry.1.Id",
                        "x".repeat(81),
                        "SendMessageBatchRequestEntry.1.MessageBody",
                        "m"),
                "AWS.SimpleQueueService.InvalidBatchEntryId");
        sqs.json("ChangeMessageVisibilityBatch", "{\"QueueUrl\": \"" + url + "\", \"Entries\": []}")
                .then()
                .statusCode(400)
                .header("x-amzn-query-error", "AWS.SimpleQueueService.EmptyBatchRequest;Sender");
        assertEquals(
                "{}",
                sqs.json("ReceiveMessage", "{\"QueueUrl\": \"" + url + "\"}").asString(),
                "nothing of a refused batch was stored");
    }

    @Test
    void aMessageOfAnotherAccountsQueueUrlIsNotSent() {
        String url = sqs.create("mine");
        String other = url.replaceFirst("/[0-9]{12}/", "/000000000000/");
        sqs.json("SendMessage", "{\"QueueUrl\": \"" + other + "\", \"MessageBody\": \"x\"}")
                .then()
                .statusCode(400)
                .header("x-amzn-query-error", "AWS.SimpleQueueService.NonExistentQueue;Sender");
        sqs.json(
                        "SendMessage",
                        "{\"QueueUrl\": \"" + url + "\", \"MessageBody\": \"x\", \"MessageAttributes\":"
                                + " {\"b\": {\"DataType\": \"Binary\", \"BinaryValue\": \"not base64!\"}}}")
                .then()
                .statusCode(400)
                .header("x-amzn-query-error", "InvalidParameterValue;Sender");
        assertEquals(
                "{}",
                sqs.json("ReceiveMessage", "{\"QueueUrl\": \"" + url + "\"}").asString());
    }

    private static void assertRefused(Response answer, String code) {
        answer.then().statusCode(400);
        assertTrue(answer.asString().contains("<Code>" + code + "</Code>"), answer.asString());
    }

    /** The path of a queue URL: where the query protocol posts a queue's actions. */
    private static String path(String url) {
        return url.replaceFirst("^https?://[^/]+", "");
    }

    private static List<String> handles(String xml) {
        List<String> handles = new ArrayList<>();
        Matcher found =
                Pattern.compile("<ReceiptHandle>([^<]+)</ReceiptHandle>").matcher(xml);
        while (found.find()) {
            handles.add(found.group(1));
        }
        return handles;
    }

    private record Attribute(String name, String dataType, String string, byte[] binary) {}

    /**
     * MD5OfMessageAttributes as AWS documents it: for each attribute in name order, the name, the data type (each
     * 4-byte big-endian length then UTF-8 bytes), a transport byte (1 string, 2 binary) and the value, length-prefixed.
     */
    private static String attributesMd5(List<Attribute> sortedByName) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        for (Attribute attribute : sortedByName) {
            prefixed(bytes, attribute.name().getBytes(StandardCharsets.UTF_8));
            prefixed(bytes, attribute.dataType().getBytes(StandardCharsets.UTF_8));
            if (attribute.binary() == null) {
                bytes.write(1);
                prefixed(bytes, attribute.string().getBytes(StandardCharsets.UTF_8));
            } else {
                bytes.write(2);
                prefixed(bytes, attribute.binary());
            }
        }
        return md5(bytes.toByteArray());
    }

    private static void prefixed(ByteArrayOutputStream out, byte[] value) {
        out.writeBytes(ByteBuffer.allocate(4).putInt(value.length).array());
        out.writeBytes(value);
    }

    private static String md5(String text) {
        return md5(text.getBytes(StandardCharsets.UTF_8));
    }

    private static String md5(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
