package io.pigeon.observability;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.opentelemetry.proto.trace.v1.Span.SpanKind;
import io.pigeon.api.v2.ZaqarOptInsProfile;
import io.pigeon.testing.Api;
import io.pigeon.testing.Eventually;
import io.pigeon.testing.OtlpCollector;
import io.pigeon.testing.OtlpCollector.CollectedSpan;
import io.pigeon.testing.Receiver;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * One trace from a producer through the queue to its consumers (issue 44; docs/operations.md, Tracing), as a
 * collector receives it: a producer posts with a {@code traceparent}, as curl would send it; a consumer claims and
 * continues the trace from the context the message carries ({@code ?include=trace}); the queue's webhook is notified
 * in a client span under the message's producer span, whose context its call carries. Every span, Pigeon's and the
 * webhook's header, has the producer's trace id.
 */
@QuarkusTest
@TestProfile(ZaqarOptInsProfile.class)
class TracingJourneyTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration EXPORTED = Duration.ofSeconds(20);

    @RegisterExtension
    static final Receiver receiver = new Receiver();

    private static OtlpCollector collector;

    @BeforeAll
    static void startCollector() {
        collector = new OtlpCollector(ZaqarOptInsProfile.OTLP_PORT);
    }

    @AfterAll
    static void stopCollector() {
        collector.close();
    }

    @Test
    void oneTraceIdFromTheProducerThroughTheClaimToTheWebhook() throws Exception {
        String project = Api.newProject();
        subscribeAndConfirm(project, "journey", "/journey-hook");

        String trace = randomHex(16);
        String producer = randomHex(8);
        Api.as(project)
                .header("traceparent", "00-" + trace + "-" + producer + "-01")
                .contentType(ContentType.JSON)
                .body("{\"messages\": [{\"ttl\": 300, \"body\": {\"order\": 42}}]}")
                .post("/v2/queues/journey/messages")
                .then()
                .statusCode(201);

        // The consumer claims, reads the message's context and continues its trace, as an instrumented consumer does.
        Response claimed = Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"ttl\": 60, \"grace\": 60}")
                .post("/v2/queues/journey/claims?include=trace");
        claimed.then().statusCode(201);
        String carried = claimed.jsonPath().getString("messages[0].trace.traceparent");
        assertTrue(carried.startsWith("00-" + trace + "-"), carried);
        Api.as(project)
                .header("traceparent", carried)
                .delete(claimed.jsonPath().getString("messages[0].href"))
                .then()
                .statusCode(204);

        Eventually.await(
                "the notification",
                EXPORTED,
                () -> receiver.calls("/journey-hook").size() == 2);
        String delivered = receiver.calls("/journey-hook").get(1).header("traceparent");

        CollectedSpan server = awaitOne(inTrace(trace)
                .and(span -> span.kind() == SpanKind.SPAN_KIND_SERVER
                        && span.parentSpanId().equals(producer)));
        CollectedSpan post = awaitOne(inTrace(trace).and(span -> span.name().equals("post journey")));
        assertEquals(server.spanId(), post.parentSpanId());
        assertEquals("00-" + trace + "-" + post.spanId() + "-01", carried, "the message carries the producer span");
        CollectedSpan claim = awaitOne(
                span -> span.name().equals("claim journey") && project.equals(span.attribute("pigeon.project")));
        assertEquals(List.of(trace + "-" + post.spanId()), claim.links(), "the claim links to the producer");
        // The webhook's call is a client span under the producer's, and the webhook is sent that span's context.
        CollectedSpan delivery = awaitOne(inTrace(trace).and(span -> span.name().equals("deliver")));
        assertEquals(SpanKind.SPAN_KIND_CLIENT, delivery.kind());
        assertEquals(post.spanId(), delivery.parentSpanId(), "the delivery continues the message's context");
        assertEquals(project, delivery.attribute("pigeon.project"));
        assertEquals("process", delivery.attribute("messaging.operation.type"));
        assertEquals("00-" + trace + "-" + delivery.spanId() + "-01", delivered, "the webhook is sent the call's span");
        CollectedSpan delete = awaitOne(inTrace(trace).and(span -> span.name().equals("delete journey")));
        assertEquals(SpanKind.SPAN_KIND_INTERNAL, delete.kind());
        assertEquals(List.of(), collector.refused());
    }

    /** Subscribes a webhook to {@code queue} and confirms it as its receiver would (the profile requires it). */
    private static void subscribeAndConfirm(String project, String queue, String hook) throws Exception {
        String id = Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"subscriber\": \"" + receiver.url(hook) + "\", \"ttl\": 3600}")
                .post("/v2/queues/" + queue + "/subscriptions")
                .then()
                .statusCode(201)
                .extract()
                .jsonPath()
                .getString("subscription_id");
        Eventually.await(
                "the confirmation request", EXPORTED, () -> receiver.calls(hook).size() == 1);
        JsonNode request = JSON.readTree(receiver.calls(hook).get(0).body());
        given().header("Client-ID", Api.CLIENT_ID)
                .header("X-Project-Id", request.get("X-Project-ID").asText())
                .header("URL-Signature", request.get("URL-Signature").asText())
                .header("URL-Expires", request.get("URL-Expires").asText())
                .header("URL-Methods", request.get("URL-Methods").asText())
                .header("URL-Paths", request.get("URL-Paths").asText())
                .contentType(ContentType.JSON)
                .body(request.get("SubscribeBody").toString())
                .put("/v2/queues/" + queue + "/subscriptions/" + id + "/confirm")
                .then()
                .statusCode(204);
    }

    private static Predicate<CollectedSpan> inTrace(String trace) {
        return span -> span.traceId().equals(trace);
    }

    private static CollectedSpan awaitOne(Predicate<CollectedSpan> test) {
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

    private static String randomHex(int bytes) {
        byte[] random = new byte[bytes];
        ThreadLocalRandom.current().nextBytes(random);
        random[0] |= 1;
        return HexFormat.of().formatHex(random);
    }
}
