package io.pigeon.api.sqs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.sqs.SqsRefusal;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;

/**
 * The shapes {@link SqsWire} writes (flattened lists and maps, nested structures, XML escaping) and the one spelling
 * {@link QueueUrls} reads, without a server: plain JUnit.
 */
class SqsWireShapesTest {

    @Test
    void nestedAnswersAreWrittenAsAwsFlattensThemInBothProtocols() {
        Map<String, Object> attributes = new LinkedHashMap<>();
        attributes.put(
                "color",
                SqsAnswer.structure()
                        .string("StringValue", "<red & \"blue\">\r")
                        .string("DataType", "String"));
        SqsAnswer answer = SqsAnswer.result()
                .structures(
                        "Messages",
                        "Message",
                        List.of(SqsAnswer.structure()
                                .string("Body", "a<b")
                                .entries("MessageAttributes", "MessageAttribute", "Name", "Value", attributes)))
                .strings("QueueUrls", "QueueUrl", List.of("u1", "u2"))
                .number("Count", 3);
        assertEquals(
                "{\"Messages\":[{\"Body\":\"a<b\",\"MessageAttributes\":{\"color\":{\"StringValue\":\"<red & \\\"blue\\\">\\r\","
                        + "\"DataType\":\"String\"}}}],\"QueueUrls\":[\"u1\",\"u2\"],\"Count\":3}",
                SqsWire.json(answer));
        assertEquals(
                "<?xml version=\"1.0\"?><ReceiveMessageResponse xmlns=\"http://queue.amazonaws.com/doc/2012-11-05/\">"
                        + "<ReceiveMessageResult><Message><Body>a&lt;b</Body><MessageAttribute><Name>color</Name><Value>"
                        + "<StringValue>&lt;red &amp; &quot;blue&quot;&gt;&#xD;</StringValue><DataType>String</DataType>"
                        + "</Value></MessageAttribute></Message><QueueUrl>u1</QueueUrl><QueueUrl>u2</QueueUrl><Count>3"
                        + "</Count></ReceiveMessageResult><ResponseMetadata><RequestId>r</RequestId></ResponseMetadata>"
                        + "</ReceiveMessageResponse>",
                SqsWire.xml("ReceiveMessage", answer, "r"));
        assertEquals("{}", SqsWire.json(SqsAnswer.none()));
        assertFalse(SqsWire.xml("DeleteQueue", SqsAnswer.none(), "r").contains("Result"));
    }

    @Test
    void aQueueUrlIsReadInOneSpellingOnly() {
        assertEquals(
                new QueueUrls.Address("123456789012", "q-1"),
                QueueUrls.ofUrl("https://any.host:9/123456789012/q-1", "999999999999"));
        // A name alone is the caller's queue of that name.
        assertEquals(new QueueUrls.Address("999999999999", "q-1"), QueueUrls.ofUrl("q-1", "999999999999"));
        assertEquals(new QueueUrls.Address("999999999999", "q.fifo"), QueueUrls.ofUrl("q.fifo", "999999999999"));
        for (String url : List.of(
                "http://h/123456789012/q/",
                "http://h//123456789012/q",
                "http://h/123456789012/%71",
                "http://h/123456789012/./q",
                "http://h/12345678901/q",
                "http://h/123456789012/q?x",
                "http://h/123456789012/q#x",
                "http://h/123456789012/" + "q".repeat(81))) {
            SqsRefusal refused = assertThrows(SqsRefusal.class, () -> QueueUrls.ofUrl(url, "123456789012"), url);
            assertEquals(SqsRefusal.Reason.QUEUE_DOES_NOT_EXIST, refused.reason(), url);
        }
        for (String url :
                List.of("q/x", "q".repeat(81), "/123456789012/q", "ftp://h/123456789012/q", "http:///123456789012/q")) {
            assertEquals(
                    SqsRefusal.Reason.INVALID_ADDRESS,
                    assertThrows(SqsRefusal.class, () -> QueueUrls.ofUrl(url, "123456789012"), url)
                            .reason(),
                    url);
        }
        assertTrue(QueueUrls.isQueuePath("/123456789012/q"));
        assertTrue(QueueUrls.isQueuePath("/123456789012"));
        assertFalse(QueueUrls.isQueuePath("/v2/queues"));
        assertFalse(QueueUrls.isQueuePath("/1234567890123/q"));
    }

    @Test
    void everyRefusalHasItsAwsShapeAndCode() {
        for (SqsRefusal.Reason reason : SqsRefusal.Reason.values()) {
            SqsErrors.Written written = SqsErrors.of(reason);
            assertTrue(written.type().contains("#"), reason.toString());
            assertTrue(written.status() >= 400 && written.status() < 600, reason.toString());
        }
        assertEquals(
                "AWS.SimpleQueueService.NonExistentQueue;Sender",
                SqsErrors.of(SqsRefusal.Reason.QUEUE_DOES_NOT_EXIST).queryErrorHeader());
        assertEquals(
                "InternalFailure;Receiver",
                SqsErrors.of(SqsRefusal.Reason.INTERNAL_FAILURE).queryErrorHeader());
    }

    @Test
    void textXmlCannotCarryIsReplacedSoTheAnswerStaysWellFormed() throws Exception {
        // A Zaqar body, a tag stored through Zaqar's metadata or a receipt handle echoed in a batch failure may hold
        // characters XML 1.0 has no spelling for (not even as a reference): boto3 could not parse the answer at all.
        String hostile = "a\u0001b\u0000c\uFFFEd\uD800e\uD83D\uDE00f";
        SqsAnswer answer = SqsAnswer.result()
                .structures("Messages", "Message", List.of(SqsAnswer.structure().string("Body", hostile)));
        String xml = SqsWire.xml("ReceiveMessage", answer, "r");
        String error = SqsWire.xmlError(
                SqsErrors.of(SqsRefusal.Reason.RECEIPT_HANDLE_IS_INVALID), "handle " + hostile + " refused", "r");
        for (String document : List.of(xml, error)) {
            DocumentBuilderFactory.newInstance()
                    .newDocumentBuilder()
                    .parse(new ByteArrayInputStream(document.getBytes(StandardCharsets.UTF_8)));
        }
        assertTrue(xml.contains("<Body>a\uFFFDb\uFFFDc\uFFFDd\uFFFDe\uD83D\uDE00f</Body>"), xml);
    }
}
