package io.pigeon.api.scaler;

import static io.pigeon.api.scaler.ScalerClient.trigger;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.pigeon.api.scaler.externalscaler.MetricSpec;
import io.pigeon.api.scaler.externalscaler.ScaledObjectRef;
import io.pigeon.testing.Api;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * KEDA's external-scaler protocol spoken to Pigeon by a plain gRPC client, with authentication off (any project, as
 * over HTTP): the metric spec, the metric and the activity follow the queue as it fills and drains; a queue is read
 * in the trigger's project only; malformed metadata is refused naming its key.
 */
@QuarkusTest
class ExternalScalerTest {

    private final String project = Api.newProject();

    private void post(String queue, int count) {
        Api.as(project)
                .contentType(ContentType.JSON)
                .body(ScalerClient.messages(count))
                .post("/v2/queues/" + queue + "/messages")
                .then()
                .statusCode(201);
    }

    /** Claims {@code limit} messages; their hrefs (each carrying the claim id). */
    private List<String> claim(String queue, int limit) {
        Response claimed = Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"ttl\": 300, \"grace\": 60}")
                .post("/v2/queues/" + queue + "/claims?limit=" + limit);
        claimed.then().statusCode(201);
        return claimed.jsonPath().getList("messages.href");
    }

    private void delete(String href) {
        Api.as(project).delete(href).then().statusCode(204);
    }

    @Test
    void theMetricSpecNamesTheMetricAndTheTarget() throws Exception {
        try (ScalerClient scaler = ScalerClient.ofTestedPigeon()) {
            MetricSpec defaults =
                    scaler.spec(trigger("project", project, "queue", "jobs")).getMetricSpecs(0);
            assertEquals("pigeon-free", defaults.getMetricName());
            assertEquals(5.0, defaults.getTargetSizeFloat());
            assertEquals(5, defaults.getTargetSize());

            MetricSpec total = scaler.spec(
                            trigger("project", project, "queue", "jobs", "metric", "total", "targetValue", "2.5"))
                    .getMetricSpecs(0);
            assertEquals("pigeon-total", total.getMetricName());
            assertEquals(2.5, total.getTargetSizeFloat());
            assertEquals(3, total.getTargetSize());
        }
    }

    @Test
    void aValueMayHaveNineDecimalPlacesAndTheRefusalOfMoreSaysSo() throws Exception {
        try (ScalerClient scaler = ScalerClient.ofTestedPigeon()) {
            MetricSpec billionth = scaler.spec(
                            trigger("project", project, "queue", "jobs", "targetValue", "0.000000001"))
                    .getMetricSpecs(0);
            assertEquals(0.000000001, billionth.getTargetSizeFloat());

            StatusRuntimeException failure = assertThrows(
                    StatusRuntimeException.class,
                    () -> scaler.spec(trigger("project", project, "queue", "jobs", "targetValue", "0.0000000001")));
            assertEquals(Status.Code.INVALID_ARGUMENT, failure.getStatus().getCode());
            assertThat(
                    failure.getStatus().getDescription(),
                    containsString("scalerMetadata.targetValue must be a number written in digits, with an optional"
                            + " decimal part of at most 9 digits"));
        }
    }

    @Test
    void theMetricAndTheActivityFollowTheQueueAsItFillsAndDrains() throws Exception {
        ScaledObjectRef free = trigger("project", project, "queue", "work", "scalerAddress", "pigeon:9010");
        ScaledObjectRef total = trigger("project", project, "queue", "work", "metric", "total");
        ScaledObjectRef aboveTwo = trigger("project", project, "queue", "work", "activationTargetValue", "2");
        try (ScalerClient scaler = ScalerClient.ofTestedPigeon()) {
            // No such queue yet: no messages.
            assertEquals(0.0, scaler.metric(free, "pigeon-free"));
            assertFalse(scaler.isActive(free));

            post("work", 3);
            assertEquals(3.0, scaler.metric(free, "pigeon-free"));
            assertEquals(3.0, scaler.metric(total, "pigeon-total"));
            assertTrue(scaler.isActive(free));
            assertTrue(scaler.isActive(aboveTwo));

            List<String> claimed = claim("work", 2);
            assertEquals(1.0, scaler.metric(free, "pigeon-free"));
            assertEquals(3.0, scaler.metric(total, "pigeon-total"));
            assertFalse(scaler.isActive(aboveTwo), "1 free message is not above 2");
            assertTrue(scaler.isActive(total));

            claimed.forEach(this::delete);
            assertEquals(1.0, scaler.metric(free, "pigeon-free"));
            assertEquals(1.0, scaler.metric(total, "pigeon-total"));

            claim("work", 1).forEach(this::delete);
            assertEquals(0.0, scaler.metric(free, "pigeon-free"));
            assertEquals(0.0, scaler.metric(total, "pigeon-total"));
            assertFalse(scaler.isActive(free));
            assertFalse(scaler.isActive(total));
        }
    }

    @Test
    void aTriggerReadsItsOwnProjectsQueueOnly() throws Exception {
        post("shared-name", 4);
        String other = Api.newProject();
        try (ScalerClient scaler = ScalerClient.ofTestedPigeon()) {
            ScaledObjectRef others = trigger("project", other, "queue", "shared-name");
            assertEquals(0.0, scaler.metric(others, "pigeon-free"));
            assertFalse(scaler.isActive(others));
            assertEquals(4.0, scaler.metric(trigger("project", project, "queue", "shared-name"), "pigeon-free"));
        }
    }

    /** Metadata that is refused, and the key the refusal must name. */
    private record Refused(String key, String... metadata) {}

    @Test
    void malformedMetadataIsRefusedNamingItsKey() throws Exception {
        List<Refused> refused = List.of(
                new Refused("project", "queue", "jobs"),
                new Refused("queue", "project", project),
                new Refused("project", "project", "", "queue", "jobs"),
                new Refused("queue", "project", project, "queue", ""),
                new Refused("queue", "project", project, "queue", "../jobs"),
                new Refused("queue", "project", project, "queue", "~topic"),
                new Refused("queue", "project", project, "queue", "x".repeat(65)),
                new Refused("project", "project", "p\u0001", "queue", "jobs"),
                new Refused("project", "project", "p".repeat(257), "queue", "jobs"),
                new Refused("metric", "project", project, "queue", "jobs", "metric", "ready"),
                new Refused("metric", "project", project, "queue", "jobs", "metric", "FREE"),
                new Refused("targetValue", "project", project, "queue", "jobs", "targetValue", "abc"),
                new Refused("targetValue", "project", project, "queue", "jobs", "targetValue", "-1"),
                new Refused("targetValue", "project", project, "queue", "jobs", "targetValue", "0"),
                new Refused("targetValue", "project", project, "queue", "jobs", "targetValue", "0.0"),
                new Refused("targetValue", "project", project, "queue", "jobs", "targetValue", "NaN"),
                new Refused("targetValue", "project", project, "queue", "jobs", "targetValue", "Infinity"),
                new Refused("targetValue", "project", project, "queue", "jobs", "targetValue", "1e3"),
                new Refused("targetValue", "project", project, "queue", "jobs", "targetValue", "5d"),
                new Refused("targetValue", "project", project, "queue", "jobs", "targetValue", "0x10"),
                new Refused("targetValue", "project", project, "queue", "jobs", "targetValue", " 5"),
                new Refused("targetValue", "project", project, "queue", "jobs", "targetValue", "1000000001"),
                new Refused("targetValue", "project", project, "queue", "jobs", "targetValue", "9".repeat(400)),
                new Refused("targetValue", "project", project, "queue", "jobs", "targetValue", ""),
                new Refused("targetValue", "project", project, "queue", "jobs", "targetValue", "0.0000000001"),
                new Refused(
                        "activationTargetValue", "project", project, "queue", "jobs", "activationTargetValue", "-0.5"),
                new Refused(
                        "activationTargetValue",
                        "project",
                        project,
                        "queue",
                        "jobs",
                        "activationTargetValue",
                        "99999999999"),
                new Refused(
                        "bearerToken",
                        "project",
                        project,
                        "queue",
                        "jobs",
                        "bearerToken",
                        "a",
                        "bearerTokenFromEnv",
                        "b"),
                new Refused("bearerToken", "project", project, "queue", "jobs", "bearerToken", "t".repeat(16385)));
        try (ScalerClient scaler = ScalerClient.ofTestedPigeon()) {
            List<Function<ScaledObjectRef, Object>> calls = List.of(
                    scaler::isActive, scaler::spec, ref -> scaler.metric(ref, "pigeon-free"), ref -> scaler.stream(ref)
                            .next());
            for (Refused each : refused) {
                ScaledObjectRef ref = trigger(each.metadata());
                String shown = List.of(each.metadata()).toString();
                for (Function<ScaledObjectRef, Object> call : calls) {
                    StatusRuntimeException failure =
                            assertThrows(StatusRuntimeException.class, () -> call.apply(ref), shown);
                    assertEquals(
                            Status.Code.INVALID_ARGUMENT, failure.getStatus().getCode(), shown);
                    assertThat(
                            shown,
                            failure.getStatus().getDescription(),
                            containsString("scalerMetadata." + each.key()));
                }
            }
        }
    }

    @Test
    void getMetricsAsksForTheMetricTheSpecNamed() throws Exception {
        try (ScalerClient scaler = ScalerClient.ofTestedPigeon()) {
            StatusRuntimeException failure = assertThrows(
                    StatusRuntimeException.class,
                    () -> scaler.metric(trigger("project", project, "queue", "jobs"), "pigeon-total"));
            assertEquals(Status.Code.INVALID_ARGUMENT, failure.getStatus().getCode());
            assertThat(failure.getStatus().getDescription(), containsString("pigeon-free"));
        }
    }

    @Test
    void streamMetricSpecIsNotOffered() throws Exception {
        try (ScalerClient scaler = ScalerClient.ofTestedPigeon()) {
            StatusRuntimeException failure = assertThrows(StatusRuntimeException.class, () -> scaler.blocking
                    .streamMetricSpec(trigger("project", project, "queue", "jobs"))
                    .next());
            assertEquals(Status.Code.UNIMPLEMENTED, failure.getStatus().getCode());
        }
    }
}
