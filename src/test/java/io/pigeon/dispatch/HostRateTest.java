package io.pigeon.dispatch;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.pool.PoolClients;
import io.pigeon.quota.SmallQuotasProfile;
import io.pigeon.testing.Api;
import io.pigeon.testing.Db;
import io.pigeon.testing.DispatchClock;
import io.pigeon.testing.Eventually;
import io.pigeon.testing.Receiver;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Calls to one target address are started at most {@code max-calls-per-host-per-second} a second (5 in this profile,
 * a burst of 5), whichever projects ask for them: the calls past it wait and are all made, none costs an attempt.
 */
@QuarkusTest
@TestProfile(SmallQuotasProfile.class)
class HostRateTest {

    private static final int CALLS = 20;
    private static final int RATE = 5;

    @RegisterExtension
    static final Receiver receiver = new Receiver();

    @Inject
    Pool pool;

    @Inject
    PoolClients pools;

    @Test
    void callsToOneAddressWaitForItsRateAndAreAllMade() {
        // Seven projects, each with its own paths on the one receiver: the rate is the address's, not a project's.
        // At most 3 pushes each, the profile's pending groups per project: the usage check that runs once 10 s after
        // the start would otherwise find the projects over their quota, and a later push would be refused (429).
        List<String> projects = new ArrayList<>();
        for (int i = 0; i < (CALLS + 2) / 3; i++) {
            projects.add(Api.newProject());
        }
        String prefix = "/rated/" + UUID.randomUUID() + "/";
        List<String> paths = new ArrayList<>();
        // All held back until every push is in (the pushes take a while to send), then due at one moment
        // (DispatchClock): without a rate they would all be called at once.
        long ontime = System.currentTimeMillis() / 1000 + 3600;
        for (int i = 0; i < CALLS; i++) {
            String path = prefix + i;
            paths.add(path);
            given().header("X-Project-Id", projects.get(i % projects.size()))
                    .contentType(ContentType.JSON)
                    .body("{\"n\": " + i + "}")
                    .post("/v3/queue/-call-" + i + "/POST/" + receiver.service(path) + "?ontime=" + ontime)
                    .then()
                    .statusCode(201);
        }
        DispatchClock.fireNow(pools, projects.toArray(String[]::new));

        Eventually.await("every call made", Duration.ofSeconds(40), () -> paths.stream()
                .allMatch(path -> !receiver.calls(path).isEmpty()));
        List<Receiver.Call> calls =
                paths.stream().flatMap(path -> receiver.calls(path).stream()).toList();
        assertEquals(CALLS, calls.size(), "each call made once");
        assertTrue(
                calls.stream().allMatch(call -> "1".equals(call.header(DeliveryClient.ATTEMPT_HEADER))),
                "a call that waited for the rate spent no attempt");
        double first = calls.stream().mapToDouble(Receiver.Call::at).min().orElseThrow();
        double last = calls.stream().mapToDouble(Receiver.Call::at).max().orElseThrow();
        // A burst of RATE at once, then one every 1/RATE s: the last starts no sooner than this after the first
        // (less 0.2 s for the receiver's clock and the dispatcher's timer granularity).
        double floor = (CALLS - RATE) / (double) RATE - 0.2;
        assertTrue(
                last - first >= floor,
                "20 calls spread over " + (last - first) + " s, at least " + floor + " s expected");
        for (String project : projects) {
            Eventually.await(
                    "nothing left of " + project,
                    Duration.ofSeconds(5),
                    () -> Db.count(pool, "SELECT count(*) FROM dispatch_groups WHERE project = $1", project) == 0);
        }
    }
}
