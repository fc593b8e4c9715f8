package io.pigeon.observability;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import io.opentelemetry.proto.trace.v1.Span.SpanKind;
import io.pigeon.api.scaler.externalscaler.ExternalScalerGrpc;
import io.pigeon.api.scaler.externalscaler.ScaledObjectRef;
import io.pigeon.api.v2.ZaqarOptInsProfile;
import io.pigeon.testing.Api;
import io.pigeon.testing.Eventually;
import io.pigeon.testing.OtlpCollector;
import io.pigeon.testing.OtlpCollector.CollectedSpan;
import io.quarkus.arc.Arc;
import io.quarkus.grpc.runtime.GrpcServer;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.value.registry.ValueRegistry;
import io.restassured.response.Response;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Pigeon's spans as a collector receives them (docs/operations.md, Tracing): an OTLP/HTTP endpoint in the test,
 * decoded with OpenTelemetry's protobuf classes, takes what Pigeon exports. Every door makes a server span (HTTP,
 * the SQS door, each websocket frame, the scaler's gRPC), and each messaging operation a child named and attributed
 * by the messaging conventions.
 */
@QuarkusTest
@TestProfile(ZaqarOptInsProfile.class)
class TracingTest {

    private static final Duration EXPORTED = Duration.ofSeconds(20);
    private static OtlpCollector collector;

    @TestHTTPResource("/")
    URI root;

    @BeforeAll
    static void startCollector() {
        collector = new OtlpCollector(ZaqarOptInsProfile.OTLP_PORT);
    }

    @AfterAll
    static void stopCollector() {
        collector.close();
    }

    @Test
    void aPostIsAServerSpanOfTheCallersTraceWithAProducerChild() {
        String project = Api.newProject();
        String trace = randomHex(16);
        String caller = randomHex(8);
        Api.as(project)
                .header("traceparent", "00-" + trace + "-" + caller + "-01")
                .contentType("application/json")
                .body("{\"messages\": [{\"ttl\": 300, \"body\": 1}, {\"ttl\": 300, \"body\": 2}]}")
                .post("/v2/queues/traced/messages")
                .then()
                .statusCode(201);

        CollectedSpan server = awaitOne(inTrace(trace).and(span -> span.kind() == SpanKind.SPAN_KIND_SERVER));
        assertEquals(caller, server.parentSpanId(), "the server span continues the caller's");
        // Named by its route template, as Quarkus names it (the template of a resource serving two versions).
        assertTrue(server.name().startsWith("POST /") && server.name().endsWith("/{queue}/messages"), server.name());
        CollectedSpan post = awaitOne(inTrace(trace).and(span -> span.name().equals("post traced")));
        assertEquals(SpanKind.SPAN_KIND_PRODUCER, post.kind());
        assertEquals(server.spanId(), post.parentSpanId());
        assertEquals("pigeon", post.attribute("messaging.system"));
        assertEquals("traced", post.attribute("messaging.destination.name"));
        assertEquals("send", post.attribute("messaging.operation.type"));
        assertEquals("post", post.attribute("messaging.operation.name"));
        assertEquals("2", post.attribute("messaging.batch.message_count"));
        assertEquals(project, post.attribute("pigeon.project"));
        // The shared statement that stored the messages: a client span in the request's trace, linked to the span of
        // each request it carried (this one alone here), without SQL text (decision 0022).
        CollectedSpan statement =
                awaitOne(inTrace(trace).and(span -> span.name().equals("post statement")));
        assertEquals(SpanKind.SPAN_KIND_CLIENT, statement.kind());
        assertEquals(server.spanId(), statement.parentSpanId());
        assertEquals("postgresql", statement.attribute("db.system.name"));
        assertEquals("post", statement.attribute("db.operation.name"));
        assertEquals("1", statement.attribute("db.operation.batch.size"));
        assertEquals(List.of(trace + "-" + server.spanId()), statement.links());
        assertEquals(
                List.of(),
                collector.spans(inTrace(trace)
                        .and(span ->
                                span.attribute("db.statement") != null || span.attribute("db.query.text") != null)),
                "SQL text in the caller's trace");
        assertEquals(List.of(), collector.refused());
    }

    @Test
    void aClaimCountsTheMessagesItTook() {
        String project = Api.newProject();
        Api.as(project)
                .contentType("application/json")
                .body("{\"messages\": [{\"ttl\": 300, \"body\": 1}, {\"ttl\": 300, \"body\": 2}, {\"ttl\": 300,"
                        + " \"body\": 3}]}")
                .post("/v2/queues/claimed/messages")
                .then()
                .statusCode(201);
        String trace = randomHex(16);
        claimInTrace(project, trace, "/v2/queues/claimed/claims?limit=2").then().statusCode(201);

        CollectedSpan claim = awaitOne(inTrace(trace).and(span -> span.name().equals("claim claimed")));
        assertEquals(SpanKind.SPAN_KIND_CONSUMER, claim.kind());
        assertEquals("receive", claim.attribute("messaging.operation.type"));
        assertEquals("2", claim.attribute("messaging.batch.message_count"));
    }

    @Test
    void aFifoQueuesClaimStatementIsAClientSpanToo() {
        String project = Api.newProject();
        Api.as(project)
                .contentType("application/json")
                .body("{\"_ordering\": \"fifo\"}")
                .put("/v2/queues/fifo-traced")
                .then()
                .statusCode(201);
        Api.as(project)
                .contentType("application/json")
                .body("{\"messages\": [{\"ttl\": 300, \"body\": 1, \"group\": \"g\"}]}")
                .post("/v2/queues/fifo-traced/messages")
                .then()
                .statusCode(201);
        String trace = randomHex(16);
        claimInTrace(project, trace, "/v2/queues/fifo-traced/claims").then().statusCode(201);

        CollectedSpan server = awaitOne(inTrace(trace).and(span -> span.kind() == SpanKind.SPAN_KIND_SERVER));
        CollectedSpan statement =
                awaitOne(inTrace(trace).and(span -> span.name().equals("fifo-claim statement")));
        assertEquals(SpanKind.SPAN_KIND_CLIENT, statement.kind());
        assertEquals(server.spanId(), statement.parentSpanId());
        assertEquals("fifo-claim", statement.attribute("db.operation.name"));
        assertEquals("1", statement.attribute("db.operation.batch.size"));
    }

    @Test
    void aClaimLinksToTheProducerSpanOfEachMessageItTook() {
        String project = Api.newProject();
        String first = randomHex(16);
        String second = randomHex(16);
        for (String trace : List.of(first, second)) {
            Api.as(project)
                    .header("traceparent", "00-" + trace + "-" + randomHex(8) + "-01")
                    .contentType("application/json")
                    .body("{\"messages\": [{\"ttl\": 300, \"body\": 1}, {\"ttl\": 300, \"body\": 2}]}")
                    .post("/v2/queues/linked/messages")
                    .then()
                    .statusCode(201);
        }
        CollectedSpan firstPost =
                awaitOne(inTrace(first).and(span -> span.name().equals("post linked")));
        CollectedSpan secondPost =
                awaitOne(inTrace(second).and(span -> span.name().equals("post linked")));
        String consumer = randomHex(16);
        Response claimed = claimInTrace(project, consumer, "/v2/queues/linked/claims?limit=4&include=trace");
        claimed.then().statusCode(201);

        // Each message carries its producer span's context, which continued its caller's trace.
        assertEquals(
                List.of(
                        context(first, firstPost),
                        context(first, firstPost),
                        context(second, secondPost),
                        context(second, secondPost)),
                claimed.jsonPath().getList("messages.trace.traceparent"));
        CollectedSpan claim = awaitOne(inTrace(consumer).and(span -> span.name().equals("claim linked")));
        assertEquals(
                List.of(first + "-" + firstPost.spanId(), second + "-" + secondPost.spanId()),
                claim.links(),
                "one link to each producer span");
    }

    /** The W3C traceparent of a sampled span. */
    private static String context(String trace, CollectedSpan span) {
        return "00-" + trace + "-" + span.spanId() + "-01";
    }

    @Test
    void theSqsDoorMakesAServerSpanAndASendChild() {
        String project = Api.newProject();
        String url = sqs(project, "CreateQueue", "{\"QueueName\": \"traced-sqs\"}")
                .then()
                .statusCode(200)
                .extract()
                .path("QueueUrl");
        String trace = randomHex(16);
        sqs(project, "SendMessage", "{\"QueueUrl\": \"" + url + "\", \"MessageBody\": \"hello\"}", trace)
                .then()
                .statusCode(200);

        CollectedSpan server = awaitOne(inTrace(trace).and(span -> span.kind() == SpanKind.SPAN_KIND_SERVER));
        CollectedSpan send = awaitOne(inTrace(trace).and(span -> span.name().equals("send traced-sqs")));
        assertEquals(server.spanId(), send.parentSpanId());
        assertEquals("1", send.attribute("messaging.batch.message_count"));
        assertEquals("send", send.attribute("messaging.operation.type"));
    }

    @Test
    void aFifoQueuesSendIsAProducerSpanWhoseContextTheMessagesCarry() {
        String project = Api.newProject();
        String url = sqs(
                        project,
                        "CreateQueue",
                        "{\"QueueName\": \"traced.fifo\", \"Attributes\": {\"FifoQueue\": \"true\"}}")
                .then()
                .statusCode(200)
                .extract()
                .path("QueueUrl");
        String trace = randomHex(16);
        sqs(
                        project,
                        "SendMessageBatch",
                        "{\"QueueUrl\": \"" + url + "\", \"Entries\": ["
                                + "{\"Id\": \"a\", \"MessageBody\": \"1\", \"MessageGroupId\": \"g\","
                                + " \"MessageDeduplicationId\": \"d1\"},"
                                + "{\"Id\": \"b\", \"MessageBody\": \"2\", \"MessageGroupId\": \"g\","
                                + " \"MessageDeduplicationId\": \"d2\"}]}",
                        trace)
                .then()
                .statusCode(200);

        CollectedSpan server = awaitOne(inTrace(trace).and(span -> span.kind() == SpanKind.SPAN_KIND_SERVER));
        CollectedSpan send = awaitOne(inTrace(trace).and(span -> span.name().equals("send traced.fifo")));
        assertEquals(SpanKind.SPAN_KIND_PRODUCER, send.kind());
        assertEquals(server.spanId(), send.parentSpanId());
        assertEquals("2", send.attribute("messaging.batch.message_count"));
        // A receive asking for the trace header gets the send's span, in X-Ray's form.
        List<String> headers = sqs(
                        project,
                        "ReceiveMessage",
                        "{\"QueueUrl\": \"" + url + "\", \"MaxNumberOfMessages\": 10,"
                                + " \"MessageSystemAttributeNames\": [\"AWSTraceHeader\"]}")
                .then()
                .statusCode(200)
                .extract()
                .path("Messages.Attributes.AWSTraceHeader");
        String xray = "Root=1-" + trace.substring(0, 8) + "-" + trace.substring(8) + ";Parent=" + send.spanId()
                + ";Sampled=1";
        assertEquals(List.of(xray, xray), headers);
    }

    @Test
    void eachWebsocketFrameIsAServerSpan() throws Exception {
        String project = Api.newProject();
        AtomicReference<CompletableFuture<String>> answered = new AtomicReference<>(new CompletableFuture<>());
        CompletableFuture<String> answer = answered.get();
        WebSocket socket = HttpClient.newHttpClient()
                .newWebSocketBuilder()
                .buildAsync(URI.create(root.toString().replace("http", "ws")), new WebSocket.Listener() {
                    private final StringBuilder text = new StringBuilder();

                    @Override
                    public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
                        text.append(data);
                        if (last) {
                            answered.get().complete(text.toString());
                            text.setLength(0);
                        }
                        webSocket.request(1);
                        return null;
                    }
                })
                .get(20, TimeUnit.SECONDS);
        try {
            socket.sendText(
                            "{\"action\": \"message_post\", \"headers\": {\"Client-ID\": \"" + Api.CLIENT_ID
                                    + "\", \"X-Project-ID\": \"" + project + "\"}, \"body\": {\"queue_name\":"
                                    + " \"socket-traced\", \"messages\": [{\"ttl\": 300, \"body\": 1}]}}",
                            true)
                    .get(20, TimeUnit.SECONDS);
            assertTrue(answer.get(20, TimeUnit.SECONDS).contains("201"), "the post is answered");
            // An action that is none of Zaqar's, as long as a frame may carry: refused, and named as all such are,
            // so that callers cannot make span names (which exporters hold until sent) of their own choosing.
            answered.set(new CompletableFuture<>());
            socket.sendText(
                            "{\"action\": \"" + "x".repeat(10_000) + "\", \"headers\": {\"Client-ID\": \""
                                    + Api.CLIENT_ID + "\", \"X-Project-ID\": \"" + project + "\"}, \"body\": {}}",
                            true)
                    .get(20, TimeUnit.SECONDS);
            assertTrue(answered.get().get(20, TimeUnit.SECONDS).contains("400"), "the action is refused");
        } finally {
            socket.abort();
        }

        CollectedSpan post = awaitOne(
                span -> span.name().equals("post socket-traced") && project.equals(span.attribute("pigeon.project")));
        CollectedSpan frame =
                awaitOne(inTrace(post.traceId()).and(span -> span.spanId().equals(post.parentSpanId())));
        assertEquals("websocket message_post", frame.name());
        assertEquals(SpanKind.SPAN_KIND_SERVER, frame.kind());
        awaitOne(span -> span.name().equals("websocket unknown") && span.kind() == SpanKind.SPAN_KIND_SERVER);
        assertEquals(
                List.of(),
                collector.spans(span -> span.name().length() > 100).stream()
                        .map(CollectedSpan::name)
                        .map(name -> name.substring(0, 100))
                        .toList(),
                "span names of the caller's making");
    }

    @Test
    void theScalersGrpcCallsAreServerSpans() throws Exception {
        int port = Arc.container().instance(ValueRegistry.class).get().get(GrpcServer.GRPC_PORT);
        ManagedChannel channel =
                NettyChannelBuilder.forAddress("localhost", port).usePlaintext().build();
        String project = Api.newProject();
        try {
            ExternalScalerGrpc.newBlockingStub(channel)
                    .isActive(ScaledObjectRef.newBuilder()
                            .setName("consumer")
                            .setNamespace("default")
                            .putScalerMetadata("project", project)
                            .putScalerMetadata("queue", "scaled")
                            .build());
        } finally {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }

        CollectedSpan call = awaitOne(span -> span.kind() == SpanKind.SPAN_KIND_SERVER
                && span.name().endsWith("/IsActive")
                && "grpc".equals(span.attribute("rpc.system")));
        assertEquals("", call.parentSpanId());
    }

    private static Response sqs(String project, String action, String body) {
        return sqs(project, action, body, null);
    }

    private static Response sqs(String project, String action, String body, String trace) {
        var request = given().header(
                        "Authorization",
                        "AWS4-HMAC-SHA256 Credential=" + project + "/20261129/us-east-1/sqs/aws4_request, "
                                + "SignedHeaders=host;x-amz-date, Signature=0000")
                .contentType("application/x-amz-json-1.0")
                .header("X-Amz-Target", "AmazonSQS." + action);
        if (trace != null) {
            request = request.header("traceparent", "00-" + trace + "-" + randomHex(8) + "-01");
        }
        return request.body(body.getBytes(StandardCharsets.UTF_8)).post("/");
    }

    /** A claim of 60 s made at {@code path} by a caller of {@code trace} (a sampled span of it). */
    private static Response claimInTrace(String project, String trace, String path) {
        return Api.as(project)
                .header("traceparent", "00-" + trace + "-" + randomHex(8) + "-01")
                .contentType("application/json")
                .body("{\"ttl\": 60, \"grace\": 60}")
                .post(path);
    }

    private static Predicate<CollectedSpan> inTrace(String trace) {
        return span -> span.traceId().equals(trace);
    }

    /** The one span {@code test} accepts, once exported. */
    static CollectedSpan awaitOne(Predicate<CollectedSpan> test) {
        try {
            Eventually.await("the span is exported", EXPORTED, () -> !collector
                    .spans(test)
                    .isEmpty());
        } catch (AssertionError e) {
            throw new AssertionError(
                    e.getMessage() + "; received " + collector.spans() + ", refused " + collector.refused(), e);
        }
        List<CollectedSpan> found = collector.spans(test);
        assertEquals(1, found.size(), () -> "one span: " + found);
        return found.get(0);
    }

    static String randomHex(int bytes) {
        byte[] random = new byte[bytes];
        ThreadLocalRandom.current().nextBytes(random);
        random[0] |= 1; // never all zeros, which W3C's trace context calls invalid
        return HexFormat.of().formatHex(random);
    }
}
