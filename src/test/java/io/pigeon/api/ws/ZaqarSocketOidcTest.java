package io.pigeon.api.ws;

import static io.pigeon.api.ws.SocketClient.body;
import static io.pigeon.api.ws.SocketClient.frame;
import static io.restassured.RestAssured.given;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pigeon.tenancy.OidcProfile;
import io.pigeon.tenancy.SignedUrlSettings;
import io.pigeon.tenancy.SignedUrls;
import io.pigeon.tenancy.Tokens;
import io.pigeon.testing.Api;
import io.pigeon.testing.Db;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import io.smallrye.jwt.build.Jwt;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Authentication over the socket in OIDC mode: nothing is served before {@code authenticate} with a token checked as
 * HTTP checks it (but message actions carrying a pre-signed grant, for exactly that grant); then each frame acts on
 * the token's projects and roles; the socket closes with 4003 when the token expires. No answer echoes a token.
 */
@QuarkusTest
@TestProfile(OidcProfile.class)
class ZaqarSocketOidcTest {

    private final String project = Api.newProject();

    @Inject
    SignedUrls signedUrls;

    @Inject
    SignedUrlSettings signedUrlSettings;

    @Inject
    Pool pool;

    private static ObjectNode authenticate(String token, String project) {
        ObjectNode frame = SocketClient.JSON.createObjectNode().put("action", "authenticate");
        frame.putObject("headers").put("X-Auth-Token", token).put("X-Project-ID", project);
        return frame;
    }

    /** A token for {@code projects} that expires {@code seconds} from now. */
    private static String expiringIn(long seconds, Object projects) {
        return Jwt.issuer(OidcProfile.ISSUER)
                .subject("worker")
                .upn("worker")
                .audience(OidcProfile.AUDIENCE)
                .claim("projects", projects)
                .expiresAt(Instant.now().plusSeconds(seconds))
                .jws()
                .keyId("1")
                .sign();
    }

    private static void assertNotAuthentified(SocketClient.Received answer) {
        assertEquals(403, answer.status(), answer.document().toString());
        assertEquals("Not authentified.", answer.body().get("error").asText());
    }

    private static void assertAuthentified(SocketClient.Received answer) {
        assertEquals(200, answer.status(), answer.document().toString());
        assertEquals("Authentified.", answer.body().get("message").asText());
        // As Zaqar: the echoed request is the bare action, and the token is not sent back.
        assertEquals(
                "{\"action\":\"authenticate\",\"body\":{},\"headers\":{},\"api\":\"v2\"}",
                answer.document().get("request").toString());
    }

    private static SocketClient.Received post(SocketClient socket, String project, String queue, String text) {
        ObjectNode body = body().put("queue_name", queue);
        body.putArray("messages").addObject().put("ttl", 300).put("body", text);
        return socket.call(frame("message_post", project, body));
    }

    @Test
    void everyFrameIsRefusedBeforeAuthentication() {
        try (SocketClient socket = SocketClient.open()) {
            assertNotAuthentified(socket.call(frame("queue_list", project, null)));
            assertNotAuthentified(post(socket, project, "q", "hi"));
            assertNotAuthentified(socket.call(frame("get_home_doc", project, null)));
            assertNotAuthentified(socket.call(frame("pool_list", project, null)));
            // The schema is read first, as Zaqar does.
            assertEquals(400, socket.call(frame("queue_get", project, null)).status());
        }
    }

    /**
     * A socket that never authenticates holds a socket of the replica's bound for nobody: it is closed (1008) after
     * pigeon.websocket.authentication-timeout (4 s in this profile), however much it answers pings; an authenticated
     * one stays.
     */
    @Test
    void aSocketThatDoesNotAuthenticateIsClosedAndAnAuthenticatedOneStays() throws InterruptedException {
        // Taken before the socket opens, so that the time measured can only be longer than the server's: a start
        // taken after authenticating the other socket could be a second late on a busy machine.
        long opened = System.nanoTime();
        try (SocketClient anonymous = SocketClient.open();
                SocketClient authenticated = SocketClient.open()) {
            assertAuthentified(authenticated.call(authenticate(Tokens.valid(List.of(project)), project)));
            assertNotAuthentified(anonymous.call(frame("queue_list", project, null)));
            assertEquals(1008, anonymous.closeCode());
            long closedAfter = (System.nanoTime() - opened) / 1_000_000;
            assertTrue(closedAfter >= 3000, "closed after " + closedAfter + " ms, before the timeout");
            assertEquals(
                    200, authenticated.call(frame("queue_list", project, null)).status());
        }
    }

    @Test
    void aValidTokenAuthenticatesTheSocketForItsProjects() {
        try (SocketClient socket = SocketClient.open()) {
            assertAuthentified(socket.call(authenticate(Tokens.valid(List.of(project)), project)));
            assertEquals(
                    201,
                    socket.call(frame("queue_create", project, body().put("queue_name", "q")))
                            .status());
            var posted = post(socket, project, "q", "hello");
            assertEquals(201, posted.status(), posted.document().toString());
            var listed = socket.call(
                    frame("message_list", project, body().put("queue_name", "q").put("echo", true)));
            assertEquals(200, listed.status());
            assertEquals("hello", listed.body().at("/messages/0/body").asText());
            // A token that grants one project may leave it out of the frame, as over HTTP.
            ObjectNode unnamed = frame("queue_list", project, null);
            ((ObjectNode) unnamed.get("headers")).remove("X-Project-ID");
            var queues = socket.call(unnamed);
            assertEquals(200, queues.status(), queues.document().toString());
            assertEquals("q", queues.body().at("/queues/0/name").asText());
            // The token is never echoed, whichever frame carries it.
            ObjectNode carrying = frame("queue_get", project, body().put("queue_name", "q"));
            ((ObjectNode) carrying.get("headers")).put("X-Auth-Token", "the-token");
            var got = socket.call(carrying);
            assertEquals(200, got.status());
            assertFalse(got.document().at("/request/headers").has("X-Auth-Token"), got.text());
            assertEquals(
                    project, got.document().at("/request/headers/X-Project-ID").asText());
        }
    }

    @Test
    void aTokenThatDoesNotHoldIsRefusedAndTheSocketStaysRefused() {
        List<String> tokens = List.of(
                "forged.token.value",
                Tokens.valid(List.of(project)) + "x",
                Tokens.fromIssuer("https://another.example.com", List.of(project)),
                Tokens.forAudience("another-service", List.of(project)),
                Tokens.expired(List.of(project)));
        try (SocketClient socket = SocketClient.open()) {
            for (String token : tokens) {
                var refused = socket.call(authenticate(token, project));
                assertEquals(401, refused.status(), refused.document().toString());
                assertEquals(
                        "{\"error\":\"Authentication failed.\"}", refused.body().toString());
                assertEquals(
                        "{\"action\":\"authenticate\",\"body\":{},\"headers\":{},\"api\":\"v2\"}",
                        refused.document().get("request").toString());
                assertFalse(refused.text().contains(token), "the token is echoed");
                assertNotAuthentified(socket.call(frame("queue_list", project, null)));
            }
            // The schema's failure echoes the headers, but not the token.
            ObjectNode noProject = SocketClient.JSON.createObjectNode().put("action", "authenticate");
            noProject.putObject("headers").put("X-Auth-Token", Tokens.valid(List.of(project)));
            var schema = socket.call(noProject);
            assertEquals(400, schema.status());
            assertEquals("{}", schema.document().at("/request/headers").toString());
            assertNotAuthentified(socket.call(frame("queue_list", project, null)));
        }
    }

    @Test
    void aFrameForAProjectTheTokenDoesNotHoldIsRefused() {
        String other = Api.newProject();
        try (SocketClient socket = SocketClient.open()) {
            // authenticate for a project the token does not grant: refused, with HTTP's text, and nothing bound.
            var wrongProject = socket.call(authenticate(Tokens.valid(List.of(project)), other));
            assertEquals(403, wrongProject.status(), wrongProject.document().toString());
            assertEquals(
                    "The token does not grant access to project " + other + ".",
                    wrongProject.body().get("exception").asText());
            assertNotAuthentified(socket.call(frame("queue_list", project, null)));

            assertAuthentified(socket.call(authenticate(Tokens.valid(List.of(project)), project)));
            var refused = post(socket, other, "q", "hi");
            assertEquals(403, refused.status(), refused.document().toString());
            assertEquals(
                    "The token does not grant access to project " + other + ".",
                    refused.body().get("exception").asText());
            assertEquals(403, socket.call(frame("queue_list", other, null)).status());
            assertEquals(200, socket.call(frame("queue_list", project, null)).status());
        }
        // Nothing was stored for the other project.
        try (SocketClient socket = SocketClient.open()) {
            assertAuthentified(socket.call(authenticate(Tokens.valid(List.of(other)), other)));
            var queues = socket.call(frame("queue_list", other, null));
            assertEquals("[]", queues.body().get("queues").toString());
        }
    }

    @Test
    void aTokenOfSeveralProjectsMustBeToldWhichOne() {
        String other = Api.newProject();
        try (SocketClient socket = SocketClient.open()) {
            assertAuthentified(socket.call(authenticate(Tokens.valid(List.of(project, other)), project)));
            assertEquals(200, socket.call(frame("queue_list", other, null)).status());
            ObjectNode unnamed = frame("queue_list", project, null);
            ((ObjectNode) unnamed.get("headers")).remove("X-Project-ID");
            var missing = socket.call(unnamed);
            assertEquals(400, missing.status(), missing.document().toString());
            assertTrue(missing.body().get("exception").asText().contains("name one"), missing.text());
        }
    }

    @Test
    void adminActionsStayRefusedForEveryone() {
        try (SocketClient socket = SocketClient.open()) {
            assertAuthentified(socket.call(authenticate(Tokens.valid(List.of(project), "pigeon-operator"), project)));
            // The operator may act for any project, as over HTTP, but the ws serves no admin action.
            assertEquals(
                    200,
                    socket.call(frame("queue_list", Api.newProject(), null)).status());
            for (String action : List.of("pool_list", "pool_create", "flavor_list", "flavor_delete")) {
                var answer = socket.call(frame(action, project, null));
                assertEquals(501, answer.status(), answer.document().toString());
            }
        }
        try (SocketClient socket = SocketClient.open()) {
            assertAuthentified(socket.call(authenticate(Tokens.valid(List.of(project)), project)));
            assertEquals(501, socket.call(frame("pool_list", project, null)).status());
            assertEquals(
                    403,
                    socket.call(frame("queue_list", Api.newProject(), null)).status());
        }
    }

    @Test
    void theSocketIsClosedWith4003WhenItsTokenExpires() {
        try (SocketClient socket = SocketClient.open()) {
            assertAuthentified(socket.call(authenticate(expiringIn(5, List.of(project)), project)));
            assertEquals(4003, socket.closeCode());
        }
    }

    @Test
    void reauthenticationReplacesTheToken() throws InterruptedException {
        String other = Api.newProject();
        try (SocketClient socket = SocketClient.open()) {
            // Room for the four frames before the re-authentication on a busy machine; past it the socket is closed.
            Instant firstExpiry = Instant.now().plusSeconds(12);
            assertAuthentified(socket.call(authenticate(expiringIn(12, List.of(project)), project)));
            assertEquals(200, socket.call(frame("queue_list", project, null)).status());
            // A token that fails leaves the socket with the one it holds.
            assertEquals(401, socket.call(authenticate("forged", project)).status());
            assertEquals(200, socket.call(frame("queue_list", project, null)).status());

            assertAuthentified(socket.call(authenticate(Tokens.valid(List.of(other)), other)));
            assertEquals(403, socket.call(frame("queue_list", project, null)).status());
            assertEquals(200, socket.call(frame("queue_list", other, null)).status());
            // The first token's expiry no longer closes the socket.
            while (Instant.now().isBefore(firstExpiry.plusSeconds(2))) {
                Thread.sleep(200);
            }
            assertFalse(socket.closedByServer());
            assertEquals(200, socket.call(frame("queue_list", other, null)).status());
        }
    }

    /**
     * What a socket receives is never more than its current token grants: re-authenticating with a token that no
     * longer grants a project drops the socket's subscriptions there at once, rows too (so the project's quota is
     * freed), while a subscription in a project the new token grants keeps receiving (so the test cannot pass by
     * nothing arriving at all). An outside attack kept receiving a revoked project's messages this way.
     */
    @Test
    void reauthenticationDropsTheSubscriptionsTheNewTokenDoesNotGrant() {
        String other = Api.newProject();
        try (SocketClient socket = SocketClient.open()) {
            assertAuthentified(socket.call(authenticate(Tokens.valid(List.of(project)), project)));
            var revoked = socket.call(frame("subscription_create", project, body().put("queue_name", "revoked")));
            assertEquals(201, revoked.status(), revoked.document().toString());
            assertEquals(1, socketSubscriptions(project));

            assertAuthentified(socket.call(authenticate(Tokens.valid(List.of(other)), other)));
            var granted = socket.call(frame("subscription_create", other, body().put("queue_name", "granted")));
            assertEquals(201, granted.status(), granted.document().toString());

            // Posted over HTTP by the first project's own callers (the operator, and its own token), then the second's.
            postOverHttp(Tokens.valid(List.of(), "pigeon-operator"), project, "revoked", "by the operator");
            postOverHttp(Tokens.valid(List.of(project)), project, "revoked", "by the project");
            postOverHttp(Tokens.valid(List.of(other)), other, "granted", "still granted");

            var notification = socket.next();
            assertEquals(
                    "{\"ttl\":300,\"body\":\"still granted\",\"Message_Type\":\"Notification\",\"queue_name\":\"granted\"}",
                    notification.text());
            var late = socket.poll(Duration.ofSeconds(3));
            assertEquals(null, late, () -> "the socket received " + late.text());
        }
        assertEquals(0, socketSubscriptions(project), "the revoked project's socket subscription row is deleted");
    }

    /** Socket subscription rows of {@code project}. */
    private long socketSubscriptions(String project) {
        return Db.count(
                pool,
                "SELECT count(*) FROM subscriptions WHERE project = $1 AND socket_lease_until IS NOT NULL",
                project);
    }

    private static void postOverHttp(String token, String project, String queue, String text) {
        given().auth()
                .oauth2(token)
                .header("Client-ID", Api.CLIENT_ID)
                .header("X-Project-Id", project)
                .contentType(ContentType.JSON)
                .body("{\"messages\": [{\"ttl\": 300, \"body\": \"" + text + "\"}]}")
                .post("/v2/queues/{queue}/messages", queue)
                .then()
                .statusCode(201);
    }

    /** A message frame carrying {@code grant}'s headers, and nothing else of the project's. */
    private static ObjectNode signed(ObjectNode frame, SignedUrls.Grant grant, boolean asArrays) {
        ObjectNode headers = (ObjectNode) frame.get("headers");
        headers.put("X-Project-ID", grant.project())
                .put("URL-Signature", grant.signature())
                .put("URL-Expires", grant.expires());
        if (asArrays) {
            grant.methods().forEach(headers.putArray("URL-Methods")::add);
            grant.paths().forEach(headers.putArray("URL-Paths")::add);
        } else {
            headers.put("URL-Methods", String.join(",", grant.methods()))
                    .put("URL-Paths", String.join(",", grant.paths()));
        }
        return frame;
    }

    private static ObjectNode messages(String action, String queue) {
        return frame(action, "ignored", body().put("queue_name", queue).put("echo", true));
    }

    private static ObjectNode postFrame(String queue) {
        ObjectNode body = body().put("queue_name", queue);
        body.putArray("messages").addObject().put("ttl", 300).put("body", "by grant");
        return frame("message_post", "ignored", body);
    }

    @Test
    void aGrantAdmitsExactlyItsQueueAndMethods() {
        try (SocketClient owner = SocketClient.open()) {
            assertAuthentified(owner.call(authenticate(Tokens.valid(List.of(project)), project)));
            assertEquals(201, post(owner, project, "shared", "one").status());
            assertEquals(201, post(owner, project, "private", "two").status());
        }
        SignedUrls.Grant reading = signedUrls.sign(
                List.of("/v2/queues/shared/messages"),
                List.of("GET"),
                project,
                Instant.now().plusSeconds(3600));
        SignedUrls.Grant posting = signedUrls.sign(
                List.of("/v2/queues/shared/messages"),
                List.of("POST"),
                project,
                Instant.now().plusSeconds(3600));
        try (SocketClient socket = SocketClient.open()) {
            for (boolean asArrays : List.of(false, true)) {
                var listed = socket.call(signed(messages("message_list", "shared"), reading, asArrays));
                assertEquals(200, listed.status(), listed.document().toString());
                assertEquals("one", listed.body().at("/messages/0/body").asText());
            }
            // Not another method, another queue, another action, another project, nor a changed grant.
            assertNotAuthentified(socket.call(signed(postFrame("shared"), reading, false)));
            assertNotAuthentified(socket.call(signed(messages("message_list", "private"), reading, false)));
            assertNotAuthentified(socket.call(signed(messages("queue_get_stats", "shared"), reading, false)));
            assertNotAuthentified(socket.call(signed(messages("claim_create", "shared"), reading, false)));
            ObjectNode otherProject = signed(messages("message_list", "shared"), reading, false);
            ((ObjectNode) otherProject.get("headers")).put("X-Project-ID", Api.newProject());
            assertNotAuthentified(socket.call(otherProject));
            ObjectNode widened = signed(messages("message_list", "shared"), reading, false);
            ((ObjectNode) widened.get("headers")).put("URL-Paths", "/v2/queues/private/messages");
            assertNotAuthentified(socket.call(widened));
            ObjectNode forged = signed(postFrame("shared"), reading, false);
            ((ObjectNode) forged.get("headers")).put("URL-Methods", "GET,POST");
            assertNotAuthentified(socket.call(forged));

            // A grant to post posts, and only that.
            var posted = socket.call(signed(postFrame("shared"), posting, true));
            assertEquals(201, posted.status(), posted.document().toString());
            assertNotAuthentified(socket.call(signed(messages("message_list", "shared"), posting, true)));
            // The socket itself is still not authenticated.
            assertNotAuthentified(socket.call(frame("queue_list", project, null)));
        }
    }

    @Test
    void aGrantsSocketsCountAgainstTheGrantNotAgainstTheProject() {
        int perGrant = signedUrlSettings.maxSocketsPerGrant();
        try (SocketClient owner = SocketClient.open()) {
            assertAuthentified(owner.call(authenticate(Tokens.valid(List.of(project)), project)));
            assertEquals(201, post(owner, project, "lent", "one").status());
        }
        SignedUrls.Grant grant = signedUrls.sign(
                List.of("/v2/queues/lent/messages"),
                List.of("GET"),
                project,
                Instant.now().plusSeconds(3600));
        // The grant's holder is a tenant of its own: its sockets hold its token, so the authentication deadline does
        // not close them while the test runs, and their frames for the lent queue carry the grant.
        String holder = Api.newProject();
        List<SocketClient> held = new ArrayList<>();
        try {
            for (int i = 0; i < perGrant; i++) {
                SocketClient socket = SocketClient.open();
                held.add(socket);
                assertAuthentified(socket.call(authenticate(Tokens.valid(List.of(holder)), holder)));
                var listed = socket.call(signed(messages("message_list", "lent"), grant, false));
                assertEquals(200, listed.status(), listed.document().toString());
            }
            // One socket more under the same grant is closed, naming the bound.
            try (SocketClient extra = SocketClient.open()) {
                assertAuthentified(extra.call(authenticate(Tokens.valid(List.of(holder)), holder)));
                extra.send(signed(messages("message_list", "lent"), grant, false));
                assertEquals(1008, extra.closeCode());
                assertThat(extra.closeReason(), containsString("pigeon.signed-url.max-sockets-per-grant"));
            }
            // The project's own sockets are not counted with the grant's: the owner's socket is served.
            try (SocketClient owner = SocketClient.open()) {
                assertAuthentified(owner.call(authenticate(Tokens.valid(List.of(project)), project)));
                var listed = owner.call(frame(
                        "message_list",
                        project,
                        body().put("queue_name", "lent").put("echo", true)));
                assertEquals(200, listed.status(), listed.document().toString());
                assertFalse(owner.closedByServer());
            }
            // The grant's sockets go on working.
            var again = held.get(0).call(signed(messages("message_list", "lent"), grant, false));
            assertEquals(200, again.status(), again.document().toString());
        } finally {
            held.forEach(SocketClient::close);
        }
    }

    @Test
    void aGrantIsRefusedOnceExpired() throws InterruptedException {
        try (SocketClient owner = SocketClient.open()) {
            assertAuthentified(owner.call(authenticate(Tokens.valid(List.of(project)), project)));
            assertEquals(201, post(owner, project, "brief", "one").status());
        }
        SignedUrls.Grant grant = signedUrls.sign(
                List.of("/v2/queues/brief/messages"),
                List.of("GET"),
                project,
                Instant.now().plusSeconds(2));
        Instant expiry = SignedUrls.expiryOf(new SignedUrls.Presented(null, grant.expires(), null, null, null));
        try (SocketClient socket = SocketClient.open()) {
            var before = socket.call(signed(messages("message_list", "brief"), grant, false));
            if (Instant.now().isBefore(expiry)) {
                // Answered within the grant's life (so checked within it): admitted.
                assertEquals(200, before.status(), before.text());
            }
            while (!Instant.now().isAfter(expiry.plus(Duration.ofMillis(500)))) {
                Thread.sleep(100);
            }
            assertNotAuthentified(socket.call(signed(messages("message_list", "brief"), grant, false)));
        }
    }

    @Test
    void aGrantNeedsNoTokenAndStillDecidesOnAnAuthenticatedSocket() {
        SignedUrls.Grant grant = signedUrls.sign(
                List.of("/v2/queues/other/messages"),
                List.of("GET"),
                project,
                Instant.now().plusSeconds(3600));
        String mine = Api.newProject();
        try (SocketClient socket = SocketClient.open()) {
            assertAuthentified(socket.call(authenticate(Tokens.valid(List.of(mine)), mine)));
            // A frame with a grant is the grant's, as an HTTP request with one: another project's queue it names.
            var listed = socket.call(signed(messages("message_list", "other"), grant, false));
            assertEquals(404, listed.status(), listed.document().toString());
            assertNotAuthentified(socket.call(signed(frame("queue_list", mine, null), grant, false)));
            assertEquals(200, socket.call(frame("queue_list", mine, null)).status());
        }
    }
}
