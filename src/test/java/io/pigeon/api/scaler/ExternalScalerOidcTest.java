package io.pigeon.api.scaler;

import static io.pigeon.api.scaler.ScalerClient.trigger;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.pigeon.api.scaler.externalscaler.ScaledObjectRef;
import io.pigeon.tenancy.OidcProfile;
import io.pigeon.tenancy.Tokens;
import io.pigeon.testing.Api;
import io.pigeon.testing.Eventually;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * The external scaler in OIDC mode: a trigger speaks for a project only with a bearer token in its metadata that
 * grants it (or the operator role), checked as the HTTP edge checks one; every other trigger is refused with a status
 * that names the key, and learns nothing of the project's queues.
 */
@QuarkusTest
@TestProfile(OidcProfile.class)
class ExternalScalerOidcTest {

    private final String owner = Api.newProject();
    private final String stranger = Api.newProject();

    private void post(String project, String queue, int count) {
        Api.as(project)
                .header("Authorization", "Bearer " + Tokens.valid(List.of(project)))
                .contentType(ContentType.JSON)
                .body(ScalerClient.messages(count))
                .post("/v2/queues/" + queue + "/messages")
                .then()
                .statusCode(201);
    }

    private static List<Function<ScaledObjectRef, Object>> calls(ScalerClient scaler) {
        return List.of(
                scaler::isActive, scaler::spec, ref -> scaler.metric(ref, "pigeon-free"), ref -> scaler.stream(ref)
                        .next());
    }

    private static void assertRefused(
            ScalerClient scaler, ScaledObjectRef ref, Status.Code code, String named, String why) {
        for (Function<ScaledObjectRef, Object> call : calls(scaler)) {
            StatusRuntimeException failure = assertThrows(StatusRuntimeException.class, () -> call.apply(ref), why);
            assertEquals(code, failure.getStatus().getCode(), why + ": " + failure.getStatus());
            assertThat(why, failure.getStatus().getDescription(), containsString(named));
        }
    }

    @Test
    void aTriggerWithoutAValidTokenIsUnauthenticated() throws Exception {
        post(owner, "jobs", 2);
        try (ScalerClient scaler = ScalerClient.ofTestedPigeon()) {
            assertRefused(
                    scaler,
                    trigger("project", owner, "queue", "jobs"),
                    Status.Code.UNAUTHENTICATED,
                    "scalerMetadata.bearerTokenFromEnv",
                    "no token");
            for (String token : List.of(
                    "not-a-token",
                    Tokens.expired(List.of(owner)),
                    Tokens.forAudience("another-service", List.of(owner)),
                    Tokens.fromIssuer("https://elsewhere.example.com", List.of(owner)),
                    Tokens.valid(List.of(owner)) + "x")) {
                assertRefused(
                        scaler,
                        trigger("project", owner, "queue", "jobs", "bearerTokenFromEnv", token),
                        Status.Code.UNAUTHENTICATED,
                        "scalerMetadata.bearerTokenFromEnv",
                        token);
                assertRefused(
                        scaler,
                        trigger("project", owner, "queue", "jobs", "bearerToken", token),
                        Status.Code.UNAUTHENTICATED,
                        "bearer token is not valid",
                        token);
            }
        }
    }

    @Test
    void aTokenSpeaksOnlyForItsProjects() throws Exception {
        post(owner, "jobs", 3);
        String strangersToken = Tokens.valid(List.of(stranger));
        try (ScalerClient scaler = ScalerClient.ofTestedPigeon()) {
            // Another project's token: refused for the owner's project, whatever its queue; nothing of it is shown.
            for (String queue : List.of("jobs", "no-such-queue")) {
                assertRefused(
                        scaler,
                        trigger("project", owner, "queue", queue, "bearerTokenFromEnv", strangersToken),
                        Status.Code.PERMISSION_DENIED,
                        "scalerMetadata.project",
                        queue);
            }
            // Its own project's queue of the same name has no messages.
            ScaledObjectRef own = trigger("project", stranger, "queue", "jobs", "bearerTokenFromEnv", strangersToken);
            assertEquals(0.0, scaler.metric(own, "pigeon-free"));
            assertFalse(scaler.isActive(own));

            ScaledObjectRef owners =
                    trigger("project", owner, "queue", "jobs", "bearerTokenFromEnv", Tokens.valid(List.of(owner, "x")));
            assertEquals(3.0, scaler.metric(owners, "pigeon-free"));
            assertTrue(scaler.isActive(owners));
            assertEquals("pigeon-free", scaler.spec(owners).getMetricSpecs(0).getMetricName());

            ScaledObjectRef operator = trigger(
                    "project",
                    owner,
                    "queue",
                    "jobs",
                    "bearerToken",
                    Tokens.valid(List.of(stranger), "pigeon-operator"));
            assertEquals(3.0, scaler.metric(operator, "pigeon-free"));
        }
    }

    @Test
    void aStreamNeedsTheTokenAndEndsWhenItExpires() throws Exception {
        Api.as(owner)
                .header("Authorization", "Bearer " + Tokens.valid(List.of(owner)))
                .put("/v2/queues/watched")
                .then()
                .statusCode(201);
        try (ScalerClient scaler = ScalerClient.ofTestedPigeon();
                ActivityStream stream = scaler.open(trigger(
                        "project", owner, "queue", "watched", "bearerTokenFromEnv", Tokens.expiringIn(4, owner)))) {
            ActivityStream.Report first = stream.next(10_000);
            assertNotNull(first);
            assertFalse(first.active());
            post(owner, "watched", 1);
            assertTrue(stream.next(5_000).active());
            Eventually.await("the stream ended with its token", Duration.ofSeconds(15), () -> stream.ended() != null);
            assertEquals(Status.Code.UNAUTHENTICATED, stream.ended().getCode());
            assertThat(stream.ended().getDescription(), containsString("expired"));
        }
    }
}
