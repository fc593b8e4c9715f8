package io.pigeon.api.sqs;

import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasKey;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.pigeon.testing.Api;
import io.pigeon.testing.Sqs;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeNameForSends;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeValue;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;

/**
 * {@code AWSTraceHeader} through aws-sdk-java v2 (docs/api/sqs.md): sent as a message system attribute (SendMessage,
 * SendMessageBatch) it is answered as sent to a receive that asks for it (its name or {@code All}), and nothing to one
 * that does not; in X-Ray's form it is also the W3C trace context the message carries, which the Zaqar API shows with
 * {@code ?include=trace}; a message posted through Zaqar with a {@code traceparent} is received with its context in
 * X-Ray's form. SQS does not check the attribute's form, and neither does Pigeon: a header that is not X-Ray's is
 * kept as sent and carries no W3C context.
 */
@QuarkusTest
class SqsTraceHeaderJavaSdkTest {

    private static final String XRAY = "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1";
    private static final String W3C = "00-5759e988bd862e3fe1be46a994272793-53995c3f42cd8ad8-01";

    private final String project = Api.newProject();
    private SqsClient sqs;

    @BeforeEach
    void client() {
        sqs = Sqs.clientFor(project);
    }

    @AfterEach
    void close() {
        sqs.close();
    }

    private static Map<MessageSystemAttributeNameForSends, MessageSystemAttributeValue> traceHeader(String value) {
        return Map.of(
                MessageSystemAttributeNameForSends.AWS_TRACE_HEADER,
                MessageSystemAttributeValue.builder()
                        .dataType("String")
                        .stringValue(value)
                        .build());
    }

    private List<Message> receive(String url, MessageSystemAttributeName... names) {
        return sqs.receiveMessage(receive -> receive.queueUrl(url)
                        .maxNumberOfMessages(10)
                        .visibilityTimeout(0)
                        .messageSystemAttributeNames(names))
                .messages();
    }

    @Test
    void aSentTraceHeaderIsReceivedAsSentAndIsTheMessagesContext() {
        String url = sqs.createQueue(create -> create.queueName("xray")).queueUrl();
        String id = sqs.sendMessage(
                        send -> send.queueUrl(url).messageBody("one").messageSystemAttributes(traceHeader(XRAY)))
                .messageId();

        Message asked =
                receive(url, MessageSystemAttributeName.AWS_TRACE_HEADER).get(0);
        assertEquals(XRAY, asked.attributes().get(MessageSystemAttributeName.AWS_TRACE_HEADER));
        Message all = receive(url, MessageSystemAttributeName.ALL).get(0);
        assertEquals(XRAY, all.attributes().get(MessageSystemAttributeName.AWS_TRACE_HEADER));
        Message notAsked =
                receive(url, MessageSystemAttributeName.SENT_TIMESTAMP).get(0);
        assertFalse(notAsked.attributes().containsKey(MessageSystemAttributeName.AWS_TRACE_HEADER));

        Api.as(project)
                .get("/v2/queues/xray/messages/" + id + "?include=trace")
                .then()
                .statusCode(200)
                .body("trace.traceparent", equalTo(W3C))
                .body("trace", not(hasKey("tracestate")));
        Api.as(project).get("/v2/queues/xray/messages/" + id).then().body("$", not(hasKey("trace")));
    }

    @Test
    void eachBatchEntryCarriesItsOwnHeaderAndOneNotInXRaysFormIsKeptAsSent() {
        String url = sqs.createQueue(create -> create.queueName("xray-batch")).queueUrl();
        var sent = sqs.sendMessageBatch(batch -> batch.queueUrl(url)
                .entries(
                        SendMessageBatchRequestEntry.builder()
                                .id("traced")
                                .messageBody("one")
                                .messageSystemAttributes(traceHeader(XRAY))
                                .build(),
                        SendMessageBatchRequestEntry.builder()
                                .id("odd")
                                .messageBody("two")
                                .messageSystemAttributes(traceHeader("Root=1-abc-def"))
                                .build(),
                        SendMessageBatchRequestEntry.builder()
                                .id("plain")
                                .messageBody("three")
                                .build()));
        assertEquals(3, sent.successful().size(), sent.toString());

        Map<String, String> byBody = new TreeMap<>();
        for (Message message : receive(url, MessageSystemAttributeName.ALL)) {
            byBody.put(
                    message.body(),
                    String.valueOf(message.attributes().get(MessageSystemAttributeName.AWS_TRACE_HEADER)));
        }
        assertEquals(Map.of("one", XRAY, "two", "Root=1-abc-def", "three", "null"), byBody);
        Api.as(project)
                .get("/v2/queues/xray-batch/messages?echo=true&include_claimed=true&include=trace")
                .then()
                .statusCode(200)
                .body("messages.find { it.body == 'one' }.trace.traceparent", equalTo(W3C))
                .body("messages.find { it.body == 'two' }", not(hasKey("trace")))
                .body("messages.find { it.body == 'three' }", not(hasKey("trace")));
    }

    /**
     * The request's {@code X-Amzn-Trace-Id} header (as X-Ray's and OpenTelemetry's AWS SDK instrumentations send it)
     * goes with every message of the send that has no {@code AWSTraceHeader} of its own, which wins (AWS's X-Ray guide,
     * "Amazon SQS and AWS X-Ray"); the send's answer digests only what the message sent, so the SDK's check passes.
     */
    @Test
    void theRequestsXRayHeaderIsTheTraceHeaderOfMessagesThatSendNone() {
        String header = "Root=1-6759e988-cd862e3fe1be46a994272793;Parent=63995c3f42cd8ad8;Sampled=1";
        String url = sqs.createQueue(create -> create.queueName("xray-header")).queueUrl();
        var sent = sqs.sendMessageBatch(batch -> batch.queueUrl(url)
                .overrideConfiguration(request -> request.putHeader("X-Amzn-Trace-Id", header))
                .entries(
                        SendMessageBatchRequestEntry.builder()
                                .id("own")
                                .messageBody("own")
                                .messageSystemAttributes(traceHeader(XRAY))
                                .build(),
                        SendMessageBatchRequestEntry.builder()
                                .id("request")
                                .messageBody("request")
                                .build()));
        assertEquals(2, sent.successful().size(), sent.toString());
        String single = sqs.sendMessage(send -> send.queueUrl(url)
                        .overrideConfiguration(request -> request.putHeader("X-Amzn-Trace-Id", header))
                        .messageBody("single"))
                .messageId();

        Map<String, String> byBody = new TreeMap<>();
        for (Message message : receive(url, MessageSystemAttributeName.AWS_TRACE_HEADER)) {
            byBody.put(message.body(), message.attributes().get(MessageSystemAttributeName.AWS_TRACE_HEADER));
        }
        assertEquals(Map.of("own", XRAY, "request", header, "single", header), byBody);
        Api.as(project)
                .get("/v2/queues/xray-header/messages/" + single + "?include=trace")
                .then()
                .statusCode(200)
                .body("trace.traceparent", equalTo("00-6759e988cd862e3fe1be46a994272793-63995c3f42cd8ad8-01"));
    }

    @Test
    void aMessagePostedThroughZaqarWithATraceparentIsReceivedWithItInXRaysForm() {
        String url = sqs.createQueue(create -> create.queueName("from-zaqar")).queueUrl();
        Api.as(project)
                .header("traceparent", W3C)
                .contentType(ContentType.JSON)
                .body("{\"messages\": [{\"body\": \"posted\"}]}")
                .post("/v2/queues/from-zaqar/messages")
                .then()
                .statusCode(201);

        Message received =
                receive(url, MessageSystemAttributeName.AWS_TRACE_HEADER).get(0);
        assertEquals(XRAY, received.attributes().get(MessageSystemAttributeName.AWS_TRACE_HEADER));
        assertFalse(receive(url).get(0).attributes().containsKey(MessageSystemAttributeName.AWS_TRACE_HEADER));
    }
}
