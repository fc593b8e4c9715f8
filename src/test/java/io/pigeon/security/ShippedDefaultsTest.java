package io.pigeon.security;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pigeon.testing.Api;
import io.pigeon.testing.Db;
import io.pigeon.testing.Eventually;
import io.pigeon.testing.RawHttp;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.RestAssured;
import io.restassured.http.ContentType;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Test;

/**
 * With the settings Pigeon ships with, no push or subscription can make it call this machine, the cloud's
 * metadata service, a private network or an unusual port; a name that resolves to such an address is never
 * connected to, and a tenant learns only that the target was not allowed.
 */
@QuarkusTest
@TestProfile(ShippedDefaultsProfile.class)
class ShippedDefaultsTest {

    @Inject
    Pool pool;

    private final String project = Api.newProject();

    private static String service(String url) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(url.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void internalAddressesAndOddPortsAreRefusedWhenStored() {
        for (String target : List.of(
                "http://127.0.0.1/x",
                "http://169.254.169.254/latest/meta-data",
                "http://10.0.0.1/x",
                "http://192.168.0.10:8080/x",
                "http://[::1]/x",
                "http://[fd12::1]/x",
                "http://0.0.0.0/x",
                "http://[::ffff:127.0.0.1]/x",
                "http://hooks.example.com:6379/x",
                "http://hooks.example.com:25/x")) {
            given().header("X-Project-Id", project)
                    .contentType(ContentType.JSON)
                    .body("{\"a\": 1}")
                    .post("/v3/queue/k/POST/" + service(target))
                    .then()
                    .statusCode(400)
                    .contentType("application/json")
                    .body("title", equalTo("Invalid API request"))
                    .body("description", containsString("\"service\""));
            Api.as(project)
                    .contentType(ContentType.JSON)
                    .body("{\"subscriber\": \"" + target + "\"}")
                    .post("/v2/queues/q/subscriptions")
                    .then()
                    .statusCode(400)
                    .body("description", containsString("\"subscriber\""));
        }
        assertEquals(0, Db.count(pool, "SELECT count(*) FROM dispatch_groups WHERE project = $1", project));
        assertEquals(0, Db.count(pool, "SELECT count(*) FROM subscriptions WHERE project = $1", project));
    }

    @Test
    void aNameThatResolvesToThisMachineIsNeverConnectedTo() {
        // Accepted when stored (names are resolved when called), refused at connect time: dead at once, and the
        // error says no more than that.
        given().header("X-Project-Id", project)
                .contentType(ContentType.JSON)
                .body("{\"a\": 1}")
                .post("/v3/queue/rebind/POST/" + service("http://localhost:8080/internal"))
                .then()
                .statusCode(201);
        Eventually.await(
                "the group refused at connect time",
                Duration.ofSeconds(5),
                () -> Db.count(
                                pool,
                                "SELECT count(*) FROM dispatch_groups WHERE project = $1 AND state = 'dead' AND attempts = 1 "
                                        + "AND last_error = 'target not allowed'",
                                project)
                        == 1);
        given().header("X-Project-Id", project)
                .get("/v3/dead-groups")
                .then()
                .statusCode(200)
                .body("groups[0].last_error", equalTo("target not allowed"));
    }

    @Test
    void withAuthOffAnXRolesHeaderDoesNotMakeTheOperator() {
        for (String roles : List.of("admin", "member,admin", "admin, pigeon-operator")) {
            Api.as(project)
                    .header("X-Roles", roles)
                    .get("/v2/health")
                    .then()
                    .statusCode(403)
                    .contentType("application/json")
                    .body("title", equalTo("Not authorized"));
        }
    }

    @Test
    void aBrowserFormCannotPushDelayedCalls() {
        String service = service("https://hooks.example.com/x");
        for (String type :
                List.of("application/x-www-form-urlencoded", "multipart/form-data; boundary=b", "text/plain")) {
            RawHttp.Answer answer = RawHttp.send(
                    RestAssured.port,
                    "POST",
                    "/v3/queue/form/POST/" + service,
                    Map.of(
                            "X-Project-Id",
                            project,
                            "Content-Type",
                            type,
                            "Origin",
                            "https://evil.example.com",
                            "Sec-Fetch-Mode",
                            "navigate"),
                    "{\"a\": 1}");
            assertEquals(400, answer.status(), type + ": " + answer);
            assertEquals(
                    true,
                    answer.isErrorDocument() && answer.body().contains("Invalid Content-Type"),
                    answer.toString());
        }
        assertEquals(0, Db.count(pool, "SELECT count(*) FROM dispatch_groups WHERE project = $1", project));
        given().header("X-Project-Id", project)
                .contentType(ContentType.JSON)
                .body("{\"a\": 1}")
                .post("/v3/queue/form/POST/" + service)
                .then()
                .statusCode(201);
    }

    @Test
    void onePostQueuesAtMostAThousandNotifications() {
        // 51 webhook subscribers and a post of 20 messages: 1,020 notifications, past the shipped 1,000.
        for (int i = 0; i < 51; i++) {
            Api.as(project)
                    .contentType(ContentType.JSON)
                    .body("{\"subscriber\": \"http://hooks-" + i + ".example.com/x\", \"ttl\": 3600}")
                    .post("/v2/queues/fan/subscriptions")
                    .then()
                    .statusCode(201);
        }
        StringBuilder document = new StringBuilder("{\"messages\": [");
        for (int i = 0; i < 20; i++) {
            document.append(i == 0 ? "" : ",")
                    .append("{\"ttl\": 300, \"body\": ")
                    .append(i)
                    .append('}');
        }
        Api.as(project)
                .contentType(ContentType.JSON)
                .body(document.append("]}").toString())
                .post("/v2/queues/fan/messages")
                .then()
                .statusCode(429)
                .body("title", equalTo("Quota exceeded"))
                .body("description", containsString("1000"))
                .body("description", containsString("pigeon.quotas.max-notifications-per-post"));
        assertEquals(0, Db.count(pool, "SELECT count(*) FROM dispatch_groups WHERE project = $1", project));
        assertEquals(
                0,
                Db.count(
                        pool,
                        "SELECT count(*) FROM messages m JOIN queues q ON q.id = m.queue_id " + "WHERE q.project = $1",
                        project));
    }

    @Test
    void idleConnectionsAreClosedAndTheirNumberIsBounded() {
        // The mechanism is tested with small values (ConnectionLimitsTest); these are the values that ship.
        var config = ConfigProvider.getConfig();
        assertEquals(Duration.ofSeconds(120), config.getValue("quarkus.http.idle-timeout", Duration.class));
        assertEquals(4096, config.getValue("quarkus.http.limits.max-connections", Integer.class));
    }
}
