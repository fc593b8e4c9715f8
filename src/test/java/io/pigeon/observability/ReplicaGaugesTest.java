package io.pigeon.observability;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pigeon.pool.PoolUpgrades;
import io.pigeon.testing.Api;
import io.pigeon.testing.Db;
import io.pigeon.testing.Eventually;
import io.pigeon.testing.Messages;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.http.ContentType;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The replica gauges the shipped dashboard and alerts read, at /q/metrics, as a scrape sees them: they follow what
 * the replica holds (a waiting claim, an open socket) and what its databases do (a pool that does not answer, one
 * that cannot be migrated), and come back when it ends.
 */
@QuarkusTest
class ReplicaGaugesTest {

    private static final Duration SETTLED = Duration.ofSeconds(30);

    @Inject
    Pool pool;

    @Inject
    PoolUpgrades upgrades;

    @Test
    void aWaitingClaimCountsWhileItWaits() throws Exception {
        String project = Api.newProject();
        Messages.postV2(project, "waits", 1, 600, 0);
        Api.as(project).delete("/v2/queues/waits/messages?pop=1").then().statusCode(200);
        CompletableFuture<Integer> claim = CompletableFuture.supplyAsync(() -> Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"ttl\": 60, \"grace\": 60, \"wait\": 20}")
                .post("/v2/queues/waits/claims")
                .statusCode());
        Eventually.await("the claim waits", SETTLED, () -> gauge("pigeon_waiters") == 1.0);
        Messages.postV2(project, "waits", 1, 600, 0);
        assertEquals(201, claim.get(SETTLED.toSeconds(), TimeUnit.SECONDS));
        Eventually.await("no claim waits", SETTLED, () -> gauge("pigeon_waiters") == 0.0);
    }

    @Test
    void anOpenSocketCountsUntilItCloses() throws Exception {
        double before = gauge("pigeon_websocket_sockets");
        WebSocket socket = HttpClient.newHttpClient()
                .newWebSocketBuilder()
                .buildAsync(URI.create("ws://127.0.0.1:" + RestAssured.port + "/"), new WebSocket.Listener() {})
                .get(SETTLED.toSeconds(), TimeUnit.SECONDS);
        Eventually.await("the socket counts", SETTLED, () -> gauge("pigeon_websocket_sockets") == before + 1);
        socket.sendClose(WebSocket.NORMAL_CLOSURE, "done").get(SETTLED.toSeconds(), TimeUnit.SECONDS);
        Eventually.await("the socket is gone", SETTLED, () -> gauge("pigeon_websocket_sockets") == before);
    }

    @Test
    void aPoolThatDoesNotAnswerIsUnreachableAndUnmigratedUntilItIsGone() {
        String name = "silent-" + UUID.randomUUID().toString().substring(0, 8);
        Db.run(
                pool,
                "INSERT INTO pools (name, uri, weight) VALUES ($1, 'postgresql://postgres:postgres@localhost:1/none', 0)",
                name);
        try {
            Eventually.await("the pool is unreachable", SETTLED, () -> gauge("pigeon_databases_unreachable") == 1.0);
            upgrades.upgradeRegistered().await().indefinitely();
            assertEquals(1.0, gauge("pigeon_pools_unmigrated"));
        } finally {
            Db.run(pool, "DELETE FROM pools WHERE name = $1", name);
        }
        Eventually.await("every database answers", SETTLED, () -> gauge("pigeon_databases_unreachable") == 0.0);
        upgrades.upgradeRegistered().await().indefinitely();
        assertEquals(0.0, gauge("pigeon_pools_unmigrated"));
    }

    /** The gauge's value in a scrape of /q/metrics (each is one series without labels). */
    private static double gauge(String name) {
        String text = given().get("/q/metrics").then().statusCode(200).extract().asString();
        Matcher value = Pattern.compile("(?m)^" + name + " (\\S+)$").matcher(text);
        if (!value.find()) {
            throw new AssertionError(name + " is not exported:\n" + text);
        }
        return Double.parseDouble(value.group(1));
    }
}
