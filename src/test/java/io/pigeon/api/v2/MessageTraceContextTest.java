package io.pigeon.api.v2;

import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.everyItem;
import static org.hamcrest.Matchers.hasKey;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.maintenance.Sweeper;
import io.pigeon.testing.Api;
import io.pigeon.testing.Eventually;
import io.pigeon.testing.Receiver;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The W3C trace context a message carries (docs/api/v2.md, decision 0022), with tracing off as shipped: a post's
 * {@code traceparent} and {@code tracestate} headers are stored with each message it creates, as received, within W3C's
 * bounds; a reader sees them only with {@code ?include=trace}, so that every other answer is Zaqar's; they survive a
 * dead-letter move and a redrive, and a webhook is notified with the message's {@code traceparent}.
 */
@QuarkusTest
class MessageTraceContextTest {

    private static final String PARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    private static final String STATE = "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE";

    @RegisterExtension
    static final Receiver receiver = new Receiver();

    @Inject
    Sweeper sweeper;

    @TestHTTPResource("/")
    URI root;

    private final String project = Api.newProject();

    private RequestSpecification traced() {
        return Api.as(project).header("traceparent", PARENT).header("tracestate", STATE);
    }

    private static Response post(RequestSpecification request, String queue, String document) {
        return request.contentType(ContentType.JSON).body(document).post("/v2/queues/" + queue + "/messages");
    }

    @Test
    void theContextIsStoredWithEachMessageAndShownOnlyWhenAskedFor() {
        post(traced(), "traced", "{\"messages\": [{\"body\": 1}, {\"body\": 2}]}")
                .then()
                .statusCode(201);
        post(Api.as(project), "traced", "{\"messages\": [{\"body\": 3}]}")
                .then()
                .statusCode(201);
        String messages = "/v2/queues/traced/messages";

        Api.as(project)
                .get(messages + "?echo=true")
                .then()
                .statusCode(200)
                .body("messages", everyItem(not(hasKey("trace"))));
        Api.as(project)
                .get(messages + "?echo=true&include=trace")
                .then()
                .body("messages.trace.traceparent", contains(PARENT, PARENT))
                .body("messages.trace.tracestate", contains(STATE, STATE))
                .body("messages[2]", not(hasKey("trace")));
        // v1.1 reads the same messages, and shows them the same way.
        Api.as(project)
                .get("/v1.1/queues/traced/messages?echo=true&include=trace")
                .then()
                .body("messages.trace.traceparent", contains(PARENT, PARENT))
                .body("messages[2]", not(hasKey("trace")));

        Response claim = Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"ttl\": 300, \"grace\": 60}")
                .post("/v2/queues/traced/claims?limit=1&include=trace");
        claim.then().statusCode(201).body("messages.trace.traceparent", contains(PARENT));
        String id = claim.jsonPath().getString("messages[0].id");
        Api.as(project).get(claim.header("Location")).then().body("messages", everyItem(not(hasKey("trace"))));
        Api.as(project)
                .get(claim.header("Location") + "?include=trace")
                .then()
                .body("messages.trace.tracestate", contains(STATE));
        Api.as(project).get(messages + "/" + id).then().body("$", not(hasKey("trace")));
        Api.as(project)
                .get(messages + "/" + id + "?include=trace")
                .then()
                .body("trace.traceparent", equalTo(PARENT))
                .body("trace.tracestate", equalTo(STATE));
        Api.as(project)
                .get(messages + "?ids=" + id + "&include=group,trace")
                .then()
                .body("messages.trace.traceparent", contains(PARENT));
        Api.as(project).delete(claim.header("Location")).then().statusCode(204);
        Api.as(project)
                .delete(messages + "?pop=3&include=trace")
                .then()
                .statusCode(200)
                .body("messages.trace.traceparent", contains(PARENT, PARENT))
                .body("messages[2]", not(hasKey("trace")));
    }

    /** A v1 post stores its request's context too; v1's answers have no place for it, v2's show it on request. */
    @Test
    void aV1PostStoresTheContextThatV2Shows() {
        Api.as(project).put("/v1/queues/traced-v1").then().statusCode(201);
        traced().contentType(ContentType.JSON)
                .body("[{\"ttl\": 300, \"body\": 1}]")
                .post("/v1/queues/traced-v1/messages")
                .then()
                .statusCode(201);

        Api.as(project)
                .get("/v1/queues/traced-v1/messages?echo=true")
                .then()
                .statusCode(200)
                .body("messages", everyItem(not(hasKey("trace"))));
        Api.as(project)
                .get("/v2/queues/traced-v1/messages?echo=true&include=trace")
                .then()
                .body("messages.trace.traceparent", contains(PARENT))
                .body("messages.trace.tracestate", contains(STATE));
    }

    /** A fifo queue's claims (taken by statements of their own, decision 0020) show the context as other claims do. */
    @Test
    void aFifoQueuesClaimShowsTheContextToo() {
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"_ordering\": \"fifo\"}")
                .put("/v2/queues/traced-fifo")
                .then()
                .statusCode(201);
        post(traced(), "traced-fifo", "{\"messages\": [{\"body\": 1, \"group\": \"g\"}, {\"body\": 2}]}")
                .then()
                .statusCode(201);

        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"ttl\": 300, \"grace\": 60}")
                .post("/v2/queues/traced-fifo/claims?limit=2&include=trace")
                .then()
                .statusCode(201)
                .body("messages.trace.traceparent", contains(PARENT, PARENT))
                .body("messages.trace.tracestate", contains(STATE, STATE));
    }

    /** What W3C calls invalid is not stored, and a trace state past W3C's bounds is dropped, its traceparent kept. */
    @Test
    void onlyAValidContextWithinW3csBoundsIsStored() {
        Map<String, String> invalidParents = Map.of(
                "uppercase hex", PARENT.toUpperCase(),
                "an all-zero trace id", "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
                "an all-zero parent id", "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
                "version ff", "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
                "version 00 with more", PARENT + "-00",
                "too short", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-1");
        invalidParents.forEach((why, parent) -> {
            String queue = "invalid-" + Math.abs(why.hashCode());
            post(
                            Api.as(project).header("traceparent", parent).header("tracestate", STATE),
                            queue,
                            "{\"messages\":" + " [{\"body\": 1}]}")
                    .then()
                    .statusCode(201);
            Api.as(project)
                    .get("/v2/queues/" + queue + "/messages?echo=true&include=trace")
                    .then()
                    .body("messages[0]", not(hasKey("trace")));
        });
        // Two traceparent headers: W3C says the request has none.
        post(
                        Api.as(project).header("traceparent", PARENT).header("traceparent", PARENT),
                        "twice",
                        "{\"messages\":" + " [{\"body\": 1}]}")
                .then()
                .statusCode(201);
        Api.as(project)
                .get("/v2/queues/twice/messages?echo=true&include=trace")
                .then()
                .body("messages[0]", not(hasKey("trace")));

        // A later version is read by its first 55 characters and stored in version 00's form.
        post(
                        Api.as(project).header("traceparent", "01" + PARENT.substring(2) + "-later"),
                        "later",
                        "{\"messages\": [{\"body\": 1}]}")
                .then()
                .statusCode(201);
        Api.as(project)
                .get("/v2/queues/later/messages?echo=true&include=trace")
                .then()
                .body("messages[0].trace.traceparent", equalTo(PARENT));

        assertEquals(state(32), storedState("thirty-two", state(32)), "32 list members are within the bound");
        assertNull(storedState("thirty-three", state(33)), "33 list members are past W3C's 32");
        String long513 = "k=" + "v".repeat(252) + ",l=" + "v".repeat(256);
        assertEquals(513, long513.length());
        assertNull(storedState("long", long513), "513 characters are past the bound of 512");
        assertNull(storedState("malformed", "Upper=1"), "a key is lowercase");
        assertNull(storedState("repeated", "a=1,b=2,a=3"), "a key appears once in the list");
        // Several tracestate lines are one list.
        Response split = post(
                Api.as(project)
                        .header("traceparent", PARENT)
                        .header("tracestate", "a=1")
                        .header("tracestate", "b=2"),
                "split",
                "{\"messages\": [{\"body\": 1}]}");
        split.then().statusCode(201);
        Api.as(project)
                .get("/v2/queues/split/messages?echo=true&include=trace")
                .then()
                .body("messages[0].trace.tracestate", equalTo("a=1,b=2"));
    }

    private static String state(int members) {
        List<String> list = new ArrayList<>();
        for (int i = 0; i < members; i++) {
            list.add("k" + i + "=v" + i);
        }
        return String.join(",", list);
    }

    /** The tracestate stored beside a valid traceparent when a post sends {@code state} (null: none stored). */
    private String storedState(String queue, String state) {
        post(
                        Api.as(project).header("traceparent", PARENT).header("tracestate", state),
                        queue,
                        "{\"messages\":" + " [{\"body\": 1}]}")
                .then()
                .statusCode(201);
        Response read = Api.as(project).get("/v2/queues/" + queue + "/messages?echo=true&include=trace");
        read.then().statusCode(200).body("messages[0].trace.traceparent", equalTo(PARENT));
        return read.jsonPath().getString("messages[0].trace.tracestate");
    }

    /** A websocket frame's {@code headers} carry the context as an HTTP post's headers do. */
    @Test
    void aWebsocketPostStoresItsFramesContext() throws Exception {
        CompletableFuture<String> answer = new CompletableFuture<>();
        WebSocket socket = HttpClient.newHttpClient()
                .newWebSocketBuilder()
                .buildAsync(URI.create(root.toString().replace("http", "ws")), new WebSocket.Listener() {
                    private final StringBuilder text = new StringBuilder();

                    @Override
                    public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
                        text.append(data);
                        if (last) {
                            answer.complete(text.toString());
                        }
                        webSocket.request(1);
                        return null;
                    }
                })
                .get(20, TimeUnit.SECONDS);
        try {
            socket.sendText(
                            "{\"action\": \"message_post\", \"headers\": {\"Client-ID\": \"" + Api.CLIENT_ID
                                    + "\", \"X-Project-ID\": \"" + project + "\", \"traceparent\": \"" + PARENT
                                    + "\", \"tracestate\": \"" + STATE + "\"}, \"body\": {\"queue_name\":"
                                    + " \"socket-traced\", \"messages\": [{\"ttl\": 300, \"body\": 1}]}}",
                            true)
                    .get(20, TimeUnit.SECONDS);
            assertTrue(answer.get(20, TimeUnit.SECONDS).contains("201"), "the post is answered");
        } finally {
            socket.abort();
        }
        Api.as(project)
                .get("/v2/queues/socket-traced/messages?echo=true&include=trace")
                .then()
                .body("messages[0].trace.traceparent", equalTo(PARENT))
                .body("messages[0].trace.tracestate", equalTo(STATE));
    }

    @Test
    void theContextSurvivesADeadLetterMoveAndARedrive() {
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"_max_claim_count\": 1, \"_dead_letter_queue\": \"traced-dead\"}")
                .put("/v2/queues/traced-source")
                .then()
                .statusCode(201);
        post(traced(), "traced-source", "{\"messages\": [{\"ttl\": 3600, \"body\": 1}]}")
                .then()
                .statusCode(201);
        Response claimed = Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"ttl\": 60}")
                .post("/v2/queues/traced-source/claims");
        claimed.then().statusCode(201);
        String id = claimed.jsonPath().getString("messages[0].id");
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"ids\": [\"" + id + "\"]}")
                .post(claimed.header("Location") + "/release")
                .then()
                .statusCode(204);
        sweeper.sweep().await().indefinitely();

        Api.as(project)
                .get("/v2/queues/traced-dead/messages/" + id + "?include=trace")
                .then()
                .statusCode(200)
                .body("trace.traceparent", equalTo(PARENT))
                .body("trace.tracestate", equalTo(STATE));

        Response started = Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"rate\": 1000}")
                .post("/v2/queues/traced-dead/redrive");
        started.then().statusCode(201);
        String task = started.header("Location");
        Eventually.await("the redrive ended", Duration.ofSeconds(30), () -> !"running"
                .equals(Api.as(project).get(task).jsonPath().getString("state")));
        Api.as(project)
                .get("/v2/queues/traced-source/messages/" + id + "?include=trace")
                .then()
                .statusCode(200)
                .body("trace.traceparent", equalTo(PARENT))
                .body("trace.tracestate", equalTo(STATE));
    }

    @Test
    void aWebhookIsNotifiedWithTheMessagesTraceparent() {
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"subscriber\": \"" + receiver.url("/traced-hook") + "\", \"ttl\": 3600, \"options\":"
                        + " {\"post_headers\": {\"TraceParent\": \"00-" + "1".repeat(32) + "-" + "2".repeat(16)
                        + "-01\", \"tracestate\": \"sub=1\"}}}")
                .post("/v2/queues/notified/subscriptions")
                .then()
                .statusCode(201);
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"subscriber\": \"" + receiver.url("/untraced-hook") + "\", \"ttl\": 3600}")
                .post("/v2/queues/quiet/subscriptions")
                .then()
                .statusCode(201);
        post(traced(), "notified", "{\"messages\": [{\"body\": \"traced\"}]}")
                .then()
                .statusCode(201);
        post(Api.as(project), "quiet", "{\"messages\": [{\"body\": \"untraced\"}]}")
                .then()
                .statusCode(201);

        Eventually.await(
                "both notifications",
                Duration.ofSeconds(20),
                () -> receiver.calls("/traced-hook").size() == 1
                        && receiver.calls("/untraced-hook").size() == 1);
        // The message's context, not the subscription's own headers: its traceparent, and no tracestate (the
        // subscription's belongs to its own traceparent).
        assertEquals(PARENT, receiver.calls("/traced-hook").get(0).header("traceparent"));
        assertNull(receiver.calls("/traced-hook").get(0).header("tracestate"), "another context's tracestate");
        assertNull(receiver.calls("/untraced-hook").get(0).header("traceparent"), "no context, no header");
    }
}
