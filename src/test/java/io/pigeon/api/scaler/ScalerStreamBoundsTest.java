package io.pigeon.api.scaler;

import static io.pigeon.api.scaler.ScalerClient.trigger;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.grpc.Status;
import io.pigeon.quota.SmallQuotasProfile;
import io.pigeon.scaling.QueueDepths;
import io.pigeon.testing.Api;
import io.pigeon.testing.Eventually;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Streams are bounded per project ({@code pigeon.scaler.max-streams-per-project}, 2 here) and per replica
 * ({@code pigeon.scaler.max-streams}, 3 here): one more is refused RESOURCE_EXHAUSTED naming the setting, the open
 * ones go on, and a stream whose client left frees its place. Polling is never bounded this way.
 */
@QuarkusTest
@TestProfile(SmallQuotasProfile.class)
class ScalerStreamBoundsTest {

    @Inject
    QueueDepths depths;

    @Inject
    ScalerConnections connections;

    private ActivityStream openAndRead(ScalerClient scaler, String project) throws InterruptedException {
        ActivityStream stream = scaler.open(trigger("project", project, "queue", "bounded"));
        ActivityStream.Report first = stream.next(10_000);
        if (first == null) {
            throw new AssertionError("no first report; ended " + stream.ended());
        }
        return stream;
    }

    private static void assertRefused(ActivityStream stream, String setting) throws InterruptedException {
        Eventually.await("the stream is refused", Duration.ofSeconds(10), () -> stream.ended() != null);
        assertNull(stream.next(0), "a refused stream reports nothing");
        assertEquals(Status.Code.RESOURCE_EXHAUSTED, stream.ended().getCode());
        assertThat(stream.ended().getDescription(), containsString(setting));
    }

    @Test
    void streamsPastTheirBoundsAreRefusedAndAPlaceIsFreedWhenAClientLeaves() throws Exception {
        // Connections other classes of the profile left (ScalerPortBoundsTest's) count against the port's bounds and
        // 127.0.0.1's share until the server has seen them close.
        Eventually.await(
                "no connection of another test is open", Duration.ofSeconds(15), () -> connections.open() == 0);
        String first = Api.newProject();
        String second = Api.newProject();
        String third = Api.newProject();
        List<ActivityStream> held = new ArrayList<>();
        try (ScalerClient scaler = ScalerClient.ofTestedPigeon()) {
            held.add(openAndRead(scaler, first));
            held.add(openAndRead(scaler, first));
            try (ActivityStream refused = scaler.open(trigger("project", first, "queue", "other"))) {
                assertRefused(refused, "pigeon.scaler.max-streams-per-project");
            }
            held.add(openAndRead(scaler, second));
            try (ActivityStream refused = scaler.open(trigger("project", third, "queue", "bounded"))) {
                assertRefused(refused, "pigeon.scaler.max-streams");
            }
            // Polling goes on past the bounds.
            assertFalse(scaler.isActive(trigger("project", third, "queue", "bounded")));
            for (ActivityStream stream : held) {
                assertNull(stream.ended(), "an open stream was ended by another's refusal");
            }

            held.remove(0).close();
            Eventually.await(
                    "the departed stream's place is free", Duration.ofSeconds(10), () -> depths.openStreams() == 2);
            held.add(openAndRead(scaler, third));
        } finally {
            for (ActivityStream stream : held) {
                stream.close();
            }
        }
    }
}
