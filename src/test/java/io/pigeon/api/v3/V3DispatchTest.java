package io.pigeon.api.v3;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.notNullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.pool.PoolClients;
import io.pigeon.testing.Api;
import io.pigeon.testing.DispatchClock;
import io.pigeon.testing.Eventually;
import io.pigeon.testing.Receiver;
import io.pigeon.testing.Receiver.Answer;
import io.pigeon.testing.Slow;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.restassured.path.json.config.JsonPathConfig;
import io.restassured.response.ValidatableResponse;
import io.restassured.specification.RequestSpecification;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The delayed-dispatch queue end to end: pushes over HTTP, deliveries to a receiver inside the test.
 * Retry timing comes from the test profile (first retry after 2 s, then 4 s, 3 calls at most). Where a test checks
 * what is called, not when, it brings its groups forward ({@link DispatchClock}) instead of waiting for their time.
 */
@QuarkusTest
class V3DispatchTest {

    @RegisterExtension
    static final Receiver receiver = new Receiver();

    @Inject
    PoolClients pools;

    private final String project = Api.newProject();
    private DispatchClock clock;

    /** From now on this project's retries follow at once: the test waits for the calls, not for the retry delays. */
    private void hurryRetries() {
        clock = DispatchClock.hurry(pools, project);
    }

    @AfterEach
    void stopTheClock() {
        if (clock != null) {
            clock.close();
        }
    }

    private static String uniquePath() {
        return "/hook/" + UUID.randomUUID();
    }

    private static double now() {
        return System.currentTimeMillis() / 1000.0;
    }

    /** A unix time as a client writes it: plain digits, milliseconds. */
    private static String unix(double seconds) {
        return String.format(Locale.ROOT, "%.3f", seconds);
    }

    /** A number of the answer read as a double (RestAssured's default, float, cannot hold a unix time to the second). */
    private static double exact(ValidatableResponse response, String path) {
        return response.extract()
                .jsonPath(JsonPathConfig.jsonPathConfig().numberReturnType(JsonPathConfig.NumberReturnType.DOUBLE))
                .getDouble(path);
    }

    private RequestSpecification client() {
        return given().header("X-Project-Id", project);
    }

    private ValidatableResponse push(String mergeKey, String path, String body, String query) {
        return client().contentType("application/json")
                .body(body)
                .post("/v3/queue/" + mergeKey + "/POST/" + receiver.service(path) + query)
                .then();
    }

    private ValidatableResponse pending(String mergeKey, String path) {
        return client().get("/v3/queue/" + mergeKey + "/POST/" + receiver.service(path))
                .then()
                .statusCode(200);
    }

    @Test
    @Slow
    void threePushesToOneGroupAreDeliveredInOneCallInArrivalOrder() {
        String path = uniquePath();
        // 3 s ahead: the pushes and the listing must all come before the group fires, on a loaded machine too.
        double ontime = now() + 3;
        for (int i = 1; i <= 3; i++) {
            push("digest", path, "{\"n\": " + i + "}", "?ontime=" + unix(ontime))
                    .statusCode(201)
                    .header("Location", containsString("/v3/queue/digest/POST/"))
                    .body("id", notNullValue())
                    .body("group_id", notNullValue());
        }
        pending("digest", path)
                .body("merged", equalTo(true))
                .body("groups", hasSize(1))
                .body("groups[0].items", hasSize(3))
                .body("groups[0].items[2].body.n", equalTo(3));

        Eventually.await(
                "one call", Duration.ofSeconds(8), () -> receiver.calls(path).size() == 1);
        Eventually.pause(Duration.ofMillis(300));
        List<Receiver.Call> calls = receiver.calls(path);
        assertEquals(1, calls.size());
        assertEquals("POST", calls.get(0).method());
        assertEquals("[{\"n\": 1},{\"n\": 2},{\"n\": 3}]", calls.get(0).body());
        assertEquals("application/json", calls.get(0).header("Content-Type"));
        assertTrue(calls.get(0).at() >= ontime - 0.05, "fired before its ontime");
        Eventually.await("the delivered group gone", Duration.ofSeconds(2), () -> pending("digest", path)
                .extract()
                .jsonPath()
                .getList("groups")
                .isEmpty());
    }

    @Test
    void aMergeKeyStartingWithDashIsNeverMerged() {
        String path = uniquePath();
        double ontime = now() + 3;
        for (int i = 1; i <= 3; i++) {
            push("-single", path, "{\"n\": " + i + "}", "?ontime=" + unix(ontime))
                    .statusCode(201);
        }
        pending("-single", path).body("merged", equalTo(false)).body("groups", hasSize(3));
        DispatchClock.fireNow(pools, project);
        Eventually.await(
                "three calls", Duration.ofSeconds(8), () -> receiver.calls(path).size() == 3);
        List<String> bodies =
                receiver.calls(path).stream().map(Receiver.Call::body).sorted().toList();
        assertEquals(List.of("[{\"n\": 1}]", "[{\"n\": 2}]", "[{\"n\": 3}]"), bodies);
    }

    @Test
    void updateOnceKeepsTheGroupsTimeAndUpdateAlwaysReplacesIt() {
        String path = uniquePath();
        double later = now() + 60;
        double fireTime =
                exact(push("k", path, "{\"n\": 1}", "?ontime=" + unix(later)).statusCode(201), "fire_at");
        assertEquals(later, fireTime, 0.01);
        // once is the default: an existing group keeps its time.
        push("k", path, "{\"n\": 2}", "?ontime=" + unix(now())).statusCode(201);
        push("k", path, "{\"n\": 3}", "?ontime=" + unix(now()) + "&update=once").statusCode(201);
        Eventually.pause(Duration.ofMillis(1200));
        assertEquals(0, receiver.calls(path).size(), "update=once moved the group's time");
        double fireAt = exact(pending("k", path), "groups[0].fire_at");
        assertEquals(later, fireAt, 0.01);

        double pushedAt = now();
        push("k", path, "{\"n\": 4}", "?ontime=" + unix(pushedAt) + "&update=always")
                .statusCode(201);
        Eventually.await(
                "the call after update=always",
                Duration.ofSeconds(2),
                () -> receiver.calls(path).size() == 1);
        assertEquals(
                "[{\"n\": 1},{\"n\": 2},{\"n\": 3},{\"n\": 4}]",
                receiver.calls(path).get(0).body());
        assertTrue(receiver.calls(path).get(0).at() - pushedAt < 1.0, "not within 1 s of its ontime");
    }

    @Test
    void aPastOntimeFiresAtOnceAndAMissingOneMeansNow() {
        String past = uniquePath();
        String absent = uniquePath();
        double pushedAt = now();
        push("p", past, "{}", "?ontime=" + (long) (pushedAt - 3600)).statusCode(201);
        push("p", absent, "[1, 2]", "").statusCode(201);
        Eventually.await(
                "both calls",
                Duration.ofSeconds(3),
                () -> receiver.calls(past).size() == 1 && receiver.calls(absent).size() == 1);
        assertEquals("[[1, 2]]", receiver.calls(absent).get(0).body());
    }

    @Test
    @Slow
    void aFutureOntimeFiresNotBeforeItAndWithinASecond() {
        String path = uniquePath();
        double ontime = now() + 2;
        push("f", path, "{}", "?ontime=" + unix(ontime)).statusCode(201);
        Eventually.await(
                "the call", Duration.ofSeconds(4), () -> receiver.calls(path).size() == 1);
        double at = receiver.calls(path).get(0).at();
        assertTrue(at >= ontime - 0.05, "fired " + (ontime - at) + " s early");
        assertTrue(at - ontime < 1.0, "fired " + (at - ontime) + " s late");
    }

    @Test
    void deleteDropsEverythingPendingOnThePath() {
        String path = uniquePath();
        push("d", path, "{\"n\": 1}", "?ontime=" + unix(now() + 4)).statusCode(201);
        push("d", path, "{\"n\": 2}", "?ontime=" + unix(now() + 4)).statusCode(201);
        client().delete("/v3/queue/d/POST/" + receiver.service(path)).then().statusCode(204);
        pending("d", path).body("groups", empty());
        client().delete("/v3/queue/d/POST/" + receiver.service(path)).then().statusCode(204);
        DispatchClock.callEverythingDue(pools, project, receiver);
        assertEquals(0, receiver.calls(path).size());
    }

    @Test
    void failedCallsAreRetriedUntilOneSucceedsAndEachItemIsDeliveredInExactlyOneSuccessfulCall() {
        String path = uniquePath();
        receiver.script(path, Answer.status(500), Answer.status(503), Answer.status(204));
        hurryRetries();
        push("r", path, "{\"n\": 1}", "").statusCode(201);
        push("r", path, "{\"n\": 2}", "").statusCode(201);
        Eventually.await(
                "three calls",
                Duration.ofSeconds(10),
                () -> receiver.calls(path).size() == 3);
        Eventually.pause(Duration.ofMillis(500));
        List<Receiver.Call> calls = receiver.calls(path);
        assertEquals(3, calls.size());
        assertEquals(
                List.of("1", "2", "3"),
                calls.stream().map(call -> call.header("X-Pigeon-Attempt")).toList());
        // Only the last call succeeded; the items it carried are exactly the two pushed, once each.
        String delivered = calls.get(2).body();
        assertTrue(delivered.equals("[{\"n\": 1},{\"n\": 2}]") || delivered.equals("[{\"n\": 1}]"), delivered);
        long ones = calls.stream().filter(call -> call == calls.get(2)).count();
        assertEquals(1, ones);
        Eventually.await(
                "no group left",
                Duration.ofSeconds(2),
                () -> pending("r", path).extract().jsonPath().getList("groups").isEmpty());
    }

    @Test
    void aCallThatTimesOutIsRetried() {
        String path = uniquePath();
        // The test profile's read timeout is 2 s.
        receiver.script(path, new Answer(200, 3500), Answer.status(200));
        push("t", path, "{\"slow\": true}", "").statusCode(201);
        Eventually.await(
                "the first call",
                Duration.ofSeconds(2),
                () -> receiver.calls(path).size() == 1);
        Eventually.await("its timeout recorded", Duration.ofSeconds(4), () -> {
            String error = pending("t", path).extract().jsonPath().getString("groups[0].last_error");
            return "timed out".equals(error);
        });
        DispatchClock.fireNow(pools, project);
        Eventually.await(
                "the retry", Duration.ofSeconds(6), () -> receiver.calls(path).size() == 2);
        Eventually.await(
                "no group left",
                Duration.ofSeconds(2),
                () -> pending("t", path).extract().jsonPath().getList("groups").isEmpty());
    }

    @Test
    @Slow
    void afterAFailureTheNextPushSetsTheFireTimeWhateverItsUpdate() {
        String path = uniquePath();
        receiver.script(path, Answer.status(500), Answer.status(200));
        push("o", path, "{\"n\": 1}", "").statusCode(201);
        Eventually.await(
                "the failed call",
                Duration.ofSeconds(2),
                () -> receiver.calls(path).size() == 1);
        Eventually.await("the failure recorded", Duration.ofSeconds(2), () -> "HTTP 5xx"
                .equals(pending("o", path).extract().jsonPath().getString("groups[0].last_error")));
        // The retry is due in 2 s; a push with update=once (the default) moves it anyway: the overwrite flag.
        double later = now() + 60;
        push("o", path, "{\"n\": 2}", "?ontime=" + unix(later)).statusCode(201);
        ValidatableResponse retried = pending("o", path).body("groups[0].attempts", equalTo(1));
        assertEquals(later, exact(retried, "groups[0].fire_at"), 0.01);
        Eventually.pause(Duration.ofMillis(2500));
        assertEquals(1, receiver.calls(path).size(), "the retry time won over the push's");
        // Until a call succeeds, every push keeps setting it.
        push("o", path, "{\"n\": 3}", "?ontime=" + unix(now())).statusCode(201);
        Eventually.await(
                "the call", Duration.ofSeconds(2), () -> receiver.calls(path).size() == 2);
        assertEquals(
                "[{\"n\": 1},{\"n\": 2},{\"n\": 3}]",
                receiver.calls(path).get(1).body());
    }

    @Test
    void aGroupThatFailsItsLastAttemptIsDeadAndCanBeRequeuedOrDropped() {
        String path = uniquePath();
        receiver.script(path, Answer.status(500), Answer.status(500), Answer.status(500), Answer.status(200));
        hurryRetries();
        push("dead", path, "{\"n\": 1}", "").statusCode(201);
        Eventually.await(
                "three failed calls",
                Duration.ofSeconds(10),
                () -> receiver.calls(path).size() == 3);
        Eventually.await("the group dead", Duration.ofSeconds(2), () -> !client().get("/v3/dead-groups")
                .then()
                .extract()
                .jsonPath()
                .getList("groups")
                .isEmpty());
        pending("dead", path).body("groups", empty());
        ValidatableResponse dead = client().get("/v3/dead-groups")
                .then()
                .statusCode(200)
                .body("groups", hasSize(1))
                .body("groups[0].merge_key", equalTo("dead"))
                .body("groups[0].method", equalTo("POST"))
                .body("groups[0].target", equalTo(receiver.url(path)))
                .body("groups[0].attempts", equalTo(3))
                .body("groups[0].last_error", equalTo("HTTP 5xx"))
                .body("groups[0].items", equalTo(1));
        String id = dead.extract().jsonPath().getString("groups[0].id");
        DispatchClock.callEverythingDue(pools, project, receiver);
        assertEquals(3, receiver.calls(path).size(), "a dead group was called again");
        // Another project sees none of it.
        given().header("X-Project-Id", Api.newProject())
                .get("/v3/dead-groups")
                .then()
                .body("groups", empty());
        given().header("X-Project-Id", Api.newProject())
                .post("/v3/dead-groups/" + id + "/requeue")
                .then()
                .statusCode(404);

        client().post("/v3/dead-groups/" + id + "/requeue").then().statusCode(204);
        Eventually.await(
                "the requeued call",
                Duration.ofSeconds(2),
                () -> receiver.calls(path).size() == 4);
        assertEquals("[{\"n\": 1}]", receiver.calls(path).get(3).body());
        assertEquals("1", receiver.calls(path).get(3).header("X-Pigeon-Attempt"));
        client().get("/v3/dead-groups").then().body("groups", empty());
        client().post("/v3/dead-groups/" + id + "/requeue")
                .then()
                .statusCode(404)
                .body("title", equalTo("Not found"));

        String doomed = uniquePath();
        receiver.script(doomed, Answer.status(500));
        push("doomed", doomed, "{}", "").statusCode(201);
        Eventually.await(
                "dead again",
                Duration.ofSeconds(10),
                () -> client().get("/v3/dead-groups")
                                .then()
                                .extract()
                                .jsonPath()
                                .getList("groups")
                                .size()
                        == 1);
        String doomedId =
                client().get("/v3/dead-groups").then().extract().jsonPath().getString("groups[0].id");
        client().delete("/v3/dead-groups/" + doomedId).then().statusCode(204);
        client().get("/v3/dead-groups").then().body("groups", empty());
    }

    @Test
    void aTargetOutsideTheAllowedListIsRefusedAndNothingIsStored() {
        for (String url : List.of("http://example.com/hook", "http://10.1.2.3/hook", "https://internal.corp:8443/x")) {
            String service = Base64.getUrlEncoder().encodeToString(url.getBytes(StandardCharsets.UTF_8));
            client().contentType("application/json")
                    .body("{}")
                    .post("/v3/queue/k/POST/" + service)
                    .then()
                    .statusCode(400)
                    .body("title", equalTo("Invalid API request"))
                    .body("description", containsString("pigeon.dispatch.allowed-targets"))
                    .body("description", containsString("\"service\""));
            client().get("/v3/queue/k/POST/" + service).then().statusCode(200).body("groups", empty());
        }
    }

    @Test
    void malformedPushesAreRefusedWithTheFieldAndTheBound() {
        String service = receiver.service(uniquePath());
        String ftp = Base64.getUrlEncoder().encodeToString("ftp://127.0.0.1/x".getBytes(StandardCharsets.UTF_8));
        String relative = Base64.getUrlEncoder().encodeToString("/just/a/path".getBytes(StandardCharsets.UTF_8));
        record Case(String path, String body, String mentions) {}
        for (Case bad : List.of(
                new Case("/v3/queue/k/TRACE/" + service, "{}", "\"method\""),
                new Case("/v3/queue/k/POST/not*base64!", "{}", "\"service\""),
                new Case("/v3/queue/k/POST/" + ftp, "{}", "\"service\""),
                new Case("/v3/queue/k/POST/" + relative, "{}", "\"service\""),
                new Case("/v3/queue/k/POST/" + service + "?ontime=soon", "{}", "\"ontime\""),
                new Case("/v3/queue/k/POST/" + service + "?ontime=1e9", "{}", "\"ontime\""),
                new Case("/v3/queue/k/POST/" + service + "?ontime=-5", "{}", "\"ontime\""),
                new Case("/v3/queue/k/POST/" + service + "?update=sometimes", "{}", "\"update\""),
                new Case("/v3/queue/k/POST/" + service, "{not json", "could not be parsed"),
                new Case("/v3/queue/k/POST/" + service, "", "empty"),
                new Case("/v3/queue/" + "m".repeat(257) + "/POST/" + service, "{}", "\"merge_key\""))) {
            client().contentType("application/json")
                    .body(bad.body())
                    .post(bad.path())
                    .then()
                    .statusCode(400)
                    .body("description", containsString(bad.mentions()));
        }
        client().get("/v3/queue/k/POST/" + service).then().body("groups", empty());
    }

    @Test
    void theSeedsCurlExampleWorks() {
        // curl -d sends application/x-www-form-urlencoded and no project header.
        String path = uniquePath();
        String padded = Base64.getUrlEncoder().encodeToString(receiver.url(path).getBytes(StandardCharsets.UTF_8));
        given().contentType("application/x-www-form-urlencoded")
                .body("{\"to\": {\"identity_id\": 789}, \"cross_id\": 123}")
                .post("/v3/queue/cross123_789/POST/" + padded + "?update=always&ontime=" + (long) now())
                .then()
                .statusCode(201);
        Eventually.await(
                "the call", Duration.ofSeconds(2), () -> receiver.calls(path).size() == 1);
        assertEquals(
                "[{\"to\": {\"identity_id\": 789}, \"cross_id\": 123}]",
                receiver.calls(path).get(0).body());
    }

    @Test
    void otherMethodsAreUsedAsGiven() {
        String path = uniquePath();
        client().contentType("application/json")
                .body("{\"a\": 1}")
                .post("/v3/queue/m/put/" + receiver.service(path))
                .then()
                .statusCode(201);
        Eventually.await(
                "the call", Duration.ofSeconds(2), () -> receiver.calls(path).size() == 1);
        assertEquals("PUT", receiver.calls(path).get(0).method());
    }

    @Test
    void anotherProjectNeitherSeesNorDeletesTheGroup() {
        String path = uniquePath();
        push("secret", path, "{}", "?ontime=" + unix(now() + 3)).statusCode(201);
        String other = Api.newProject();
        given().header("X-Project-Id", other)
                .get("/v3/queue/secret/POST/" + receiver.service(path))
                .then()
                .statusCode(200)
                .body("groups", empty());
        given().header("X-Project-Id", other)
                .delete("/v3/queue/secret/POST/" + receiver.service(path))
                .then()
                .statusCode(204);
        pending("secret", path).body("groups", hasSize(1));
        DispatchClock.fireNow(pools, project);
        Eventually.await(
                "the call", Duration.ofSeconds(8), () -> receiver.calls(path).size() == 1);
    }

    /** A path's pending items are listed in pages of at most `limit` items and 1 MiB of bodies, with a next link. */
    @Test
    void pendingItemsAreListedInBoundedPages() {
        String path = uniquePath();
        String pad = "p".repeat(250_000);
        for (int i = 0; i < 6; i++) {
            push("paged", path, "{\"n\": " + i + ", \"pad\": \"" + pad + "\"}", "?ontime=" + unix(now() + 86_400))
                    .statusCode(201);
        }
        ValidatableResponse first = pending("paged", path)
                .body("groups", hasSize(1))
                .body("groups[0].items", hasSize(4))
                .body("links", hasSize(1));
        String next = first.extract().jsonPath().getString("links[0].href");
        assertTrue(next.contains("marker="), next);
        client().get(next)
                .then()
                .statusCode(200)
                .body("groups[0].items", hasSize(2))
                .body("groups[0].items[0].body.n", equalTo(4))
                .body("links", empty());
        client().get("/v3/queue/paged/POST/" + receiver.service(path) + "?limit=2")
                .then()
                .statusCode(200)
                .body("groups[0].items", hasSize(2))
                .body("links[0].href", containsString("limit=2"));
        client().get("/v3/queue/paged/POST/" + receiver.service(path) + "?limit=0")
                .then()
                .statusCode(400)
                .body("description", containsString("limit"));
        client().get("/v3/queue/paged/POST/" + receiver.service(path) + "?marker=x")
                .then()
                .statusCode(400)
                .body("description", containsString("marker"));
    }

    /**
     * Walking every page of a path, merged or not, with and without a limit: each page holds as many items as fit in
     * 1 MiB of bodies (one item always) and the limit, no fewer; its next link starts after its last item; every item
     * comes exactly once, in arrival order.
     */
    @Test
    @Slow
    void pagesAreFullBoundedAndTogetherHoldEveryItemOnce() {
        int maxBytes = 1024 * 1024;
        int[] pads = {200_000, 100, 260_000, 0, 150_000, 260_000, 260_000, 5, 259_000, 1_000, 240_000, 230_000, 20};
        String path = uniquePath();
        Map<Integer, Integer> sizes = new HashMap<>();
        for (String key : List.of("walk", "-walk")) {
            for (int n = 0; n < pads.length; n++) {
                String body = "{\"n\": " + n + ", \"pad\": \"" + "w".repeat(pads[n]) + "\"}";
                sizes.put(n, body.length());
                push(key, path, body, "?ontime=" + unix(now() + 86_400)).statusCode(201);
            }
            for (Integer limit : Arrays.asList(null, 3)) {
                List<Integer> seen = new ArrayList<>();
                String next = "/v3/queue/" + key + "/POST/" + receiver.service(path)
                        + (limit == null ? "" : "?limit=" + limit);
                int pages = 0;
                while (next != null) {
                    assertTrue(++pages <= pads.length, "more pages than items");
                    JsonPath page =
                            client().get(next).then().statusCode(200).extract().jsonPath();
                    List<Integer> shown = page.<List<Integer>>getList("groups.items.body.n").stream()
                            .flatMap(List::stream)
                            .toList();
                    List<String> ids = page.<List<String>>getList("groups.items.id").stream()
                            .flatMap(List::stream)
                            .toList();
                    int bytes = shown.stream().mapToInt(sizes::get).sum();
                    assertTrue(!shown.isEmpty(), "an empty page at " + next);
                    assertTrue(shown.size() == 1 || bytes <= maxBytes, "a page of " + bytes + " bytes: " + shown);
                    assertTrue(limit == null || shown.size() <= limit, "a page of " + shown.size() + " items");
                    seen.addAll(shown);
                    List<String> links = page.getList("links.href");
                    if (seen.size() < pads.length) {
                        assertEquals(1, links.size(), "a next link after " + seen);
                        next = links.get(0);
                        assertTrue(next.contains("marker=" + ids.get(ids.size() - 1)), next);
                        assertEquals(limit != null, next.contains("limit=" + limit), next);
                        // Full: the next item would not have fitted.
                        int following = seen.size();
                        assertTrue(
                                (limit != null && shown.size() == limit) || bytes + sizes.get(following) > maxBytes,
                                "page " + shown + " stopped before item " + following);
                    } else {
                        assertEquals(List.of(), links, "a next link after the last item");
                        next = null;
                    }
                }
                assertEquals(IntStream.range(0, pads.length).boxed().toList(), seen, key + " with limit " + limit);
            }
        }
    }

    /** Issue 25, item 4: an ontime in year 9999 was kept until then. The horizon is the database clock's now + 30 days. */
    @Test
    void anOntimeBeyondTheHorizonIsRefusedWithTheBound() {
        String path = uniquePath();
        double inAMonth = now() + 29 * 86_400;
        double fireAt = exact(
                push("far", path, "{\"n\": 1}", "?ontime=" + unix(inAMonth)).statusCode(201), "fire_at");
        for (String ontime : List.of(unix(now() + 31 * 86_400), "253402300799")) {
            for (String update : List.of("", "&update=always")) {
                push("far", path, "{\"n\": 2}", "?ontime=" + ontime + update)
                        .statusCode(400)
                        .body("title", equalTo("Invalid parameter"))
                        .body("description", containsString("\"ontime\""))
                        .body("description", containsString("2592000 seconds"))
                        .body("description", containsString("pigeon.dispatch.ontime-horizon"));
                push("-far", path, "{\"n\": 2}", "?ontime=" + ontime + update).statusCode(400);
            }
        }
        // Nothing of the refused pushes was stored, and the group kept its time.
        ValidatableResponse shown =
                pending("far", path).body("groups", hasSize(1)).body("groups[0].items", hasSize(1));
        assertEquals(fireAt, exact(shown, "groups[0].fire_at"), 0.001);
        pending("-far", path).body("groups", empty());
    }
}
