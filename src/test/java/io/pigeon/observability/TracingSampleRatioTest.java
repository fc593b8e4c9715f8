package io.pigeon.observability;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.opentelemetry.proto.trace.v1.Span.SpanKind;
import io.pigeon.api.console.ConsoleProfile;
import io.pigeon.testing.Api;
import io.pigeon.testing.Eventually;
import io.pigeon.testing.OtlpCollector;
import io.pigeon.testing.OtlpCollector.CollectedSpan;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Sampling is chosen when Pigeon starts (docs/operations.md, Tracing): the sampler is built in as
 * {@code parentbased_traceidratio}, and {@code QUARKUS_OTEL_TRACES_SAMPLER_ARG} (a runtime setting) is the share of
 * the traces Pigeon starts itself that it records. At 0 it records none of its own; a caller's decision, carried by
 * its {@code traceparent}, is still followed either way. (The share is 0 in ConsoleProfile, whose other classes send
 * no {@code traceparent}.)
 */
@QuarkusTest
@TestProfile(ConsoleProfile.class)
class TracingSampleRatioTest {

    private static OtlpCollector collector;

    @BeforeAll
    static void startCollector() {
        collector = new OtlpCollector(ConsoleProfile.OTLP_PORT);
    }

    @AfterAll
    static void stopCollector() {
        collector.close();
    }

    @Test
    void onlyTheCallersSampledTracesAreRecorded() {
        String unsampledRoot = Api.newProject();
        String unsampledCaller = Api.newProject();
        String sampledCaller = Api.newProject();
        post(unsampledRoot, null);
        post(unsampledCaller, "00-" + TracingTest.randomHex(16) + "-" + TracingTest.randomHex(8) + "-00");
        String trace = TracingTest.randomHex(16);
        post(sampledCaller, "00-" + trace + "-" + TracingTest.randomHex(8) + "-01");

        // Spans are exported in the order they end: once the last post's server span (the last of it to end) is in,
        // every earlier span would be too.
        Eventually.await("the sampled caller's post is exported", Duration.ofSeconds(20), () -> !collector
                .spans(span -> span.traceId().equals(trace) && span.kind() == SpanKind.SPAN_KIND_SERVER)
                .isEmpty());
        // Every span exported is of that trace: the server span, the producer span and the statement's of the
        // sampled post.
        assertEquals(
                List.of(),
                collector.spans(span -> !span.traceId().equals(trace)),
                "spans of the requests without trace context or with an unsampled caller");
        List<CollectedSpan> sampled = collector.spans(span -> span.traceId().equals(trace));
        assertEquals(3, sampled.size(), () -> "the server, the producer and the statement span: " + sampled);
        assertEquals(
                sampledCaller,
                sampled.stream()
                        .map(span -> span.attribute("pigeon.project"))
                        .filter(project -> project != null)
                        .findFirst()
                        .orElse(null));
        assertEquals(List.of(), collector.refused());
    }

    private static void post(String project, String traceparent) {
        var request = Api.as(project);
        if (traceparent != null) {
            request = request.header("traceparent", traceparent);
        }
        request.contentType("application/json")
                .body("{\"messages\": [{\"ttl\": 300, \"body\": 1}]}")
                .post("/v2/queues/sampled/messages")
                .then()
                .statusCode(201);
    }
}
