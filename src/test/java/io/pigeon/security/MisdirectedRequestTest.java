package io.pigeon.security;

import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.testing.Api;
import io.pigeon.testing.RawHttp;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.http.ContentType;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * DNS rebinding: a page on {@code http://evil.example:<port>} whose name the attacker then points at Pigeon's address
 * reaches Pigeon as the same origin, and the browser sends {@code Host: evil.example:<port>}. Every request naming a
 * host Pigeon does not serve is refused (421, the error document naming the host) before anything reads it, on every
 * surface (the API, the console, {@code /q}, the socket upgrade), in every spelling a raw client can send; the hosts
 * served by default ({@code localhost}, any IP address) are served in every spelling of theirs. Sent over a raw socket,
 * so that the {@code Host} is exactly the one written.
 */
@QuarkusTest
class MisdirectedRequestTest {

    private final String project = Api.newProject();

    private static int port() {
        return RestAssured.port;
    }

    private static RawHttp.Answer get(String target, String version, List<String> hosts, String extra) {
        StringBuilder head = new StringBuilder("GET ")
                .append(target)
                .append(' ')
                .append(version)
                .append("\r\n");
        hosts.forEach(host -> head.append("Host: ").append(host).append("\r\n"));
        return RawHttp.exchange(
                port(), head.append(extra).append("Connection: close\r\n\r\n").toString());
    }

    private static RawHttp.Answer get(String target, String host) {
        return get(target, "HTTP/1.1", List.of(host), "");
    }

    private static void assertMisdirected(RawHttp.Answer answer, String host, String what) {
        assertEquals(421, answer.status(), what + " -> " + answer);
        assertTrue(answer.isErrorDocument(), what + " -> " + answer);
        assertTrue(answer.body().contains("Misdirected request"), what + " -> " + answer);
        assertTrue(answer.body().contains("'" + host + "'"), "the document names the host: " + what + " -> " + answer);
        assertEquals("close", answer.header("connection"), what);
    }

    @Test
    void everySurfaceRefusesAHostItDoesNotServe() {
        String p = ":" + port();
        List<String> targets = List.of(
                "/",
                "/v2",
                "/v1/health",
                "/v2/queues",
                "/console",
                "/console/projects/" + project,
                "/q/health",
                "/q/health/ready",
                "/q/metrics",
                "/q/openapi",
                "/no/such/path");
        for (String host : List.of(
                "evil.example",
                "evil.example" + p,
                "localhost.evil.example" + p,
                "LOCALHOST.EVIL.EXAMPLE" + p,
                "127.0.0.1.evil.example" + p,
                "x.localhost" + p,
                "localhost-evil" + p,
                "0x7f000001" + p,
                "127.1" + p)) {
            for (String target : targets) {
                String extra = "X-Project-Id: " + project + "\r\nClient-ID: " + Api.CLIENT_ID + "\r\n";
                assertMisdirected(get(target, "HTTP/1.1", List.of(host), extra), host, "GET " + target + " " + host);
            }
            for (String socketPath : List.of("/", "/v2")) {
                RawHttp.Answer upgrade = RawHttp.exchange(
                        port(),
                        "GET " + socketPath + " HTTP/1.1\r\nHost: " + host + "\r\n" + RawHttp.UPGRADE_HEADERS
                                + "Origin: http://" + host + "\r\nX-Project-Id: " + project + "\r\n\r\n");
                assertMisdirected(upgrade, host, "upgrade at " + socketPath + " " + host);
            }
        }
    }

    @Test
    void aMisdirectedWriteChangesNothing() {
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"messages\": [{\"ttl\": 300, \"body\": \"kept\"}]}")
                .post("/v2/queues/kept/messages")
                .then()
                .statusCode(201);
        String who = "X-Project-Id: " + project + "\r\nClient-ID: " + Api.CLIENT_ID + "\r\n";
        for (String head : List.of(
                "DELETE /v2/queues/kept HTTP/1.1\r\nHost: evil.example\r\n" + who + "\r\n",
                "PUT /v2/queues/added HTTP/1.1\r\nHost: evil.example\r\n" + who + "Content-Length: 0\r\n\r\n",
                "POST /v2/queues/kept/messages HTTP/1.1\r\nHost: evil.example:" + port() + "\r\n" + who
                        + "Content-Type: application/json\r\nContent-Length: 44\r\n\r\n"
                        + "{\"messages\": [{\"ttl\": 300, \"body\": \"new\"}]}")) {
            assertEquals(421, RawHttp.exchange(port(), head).status(), head);
        }
        Api.as(project)
                .get("/v2/queues/kept/messages?echo=true")
                .then()
                .statusCode(200)
                .body("messages.size()", is(1))
                .body("messages[0].body", is("kept"));
        Api.as(project).get("/v1/queues/added").then().statusCode(404); // v1 answers whether it exists
    }

    /** The hosts served by default, in each spelling a client may use: the answer is the resource's own. */
    @Test
    void localhostAndAddressesAreServedInEverySpelling() {
        String p = ":" + port();
        for (String host : List.of(
                "localhost" + p,
                "localhost",
                "LOCALHOST" + p,
                "LocalHost" + p,
                "localhost." + p,
                "127.0.0.1" + p,
                "127.0.0.1",
                "[::1]" + p,
                "[::1]",
                "[0:0:0:0:0:0:0:1]" + p,
                // A pod's address, as a Kubernetes probe sends it, and a Service's cluster IP.
                "10.244.1.17" + p,
                "10.96.14.7")) {
            RawHttp.Answer home = get("/v2/", host);
            assertEquals(200, home.status(), host + " -> " + home);
            RawHttp.Answer ready = get("/q/health/ready", host);
            assertEquals(200, ready.status(), host + " -> " + ready);
        }
    }

    /** An absolute request target names the host too (and comes before the header): each must be served. */
    @Test
    void anAbsoluteTargetMustNameAServedHostToo() {
        String local = "localhost:" + port();
        assertEquals(200, get("http://" + local + "/v2/", local).status());
        assertEquals(200, get("HTTP://LOCALHOST:" + port() + "/v2/", local).status());
        for (String target : List.of(
                "http://evil.example/v2",
                "http://evil.example:" + port() + "/v2",
                "https://localhost.evil.example/v2",
                "http://evil.example/q/health/ready",
                "ws://evil.example/")) {
            String named = target.substring(target.indexOf("://") + 3, target.indexOf('/', target.indexOf("://") + 3));
            assertMisdirected(get(target, local), named, target);
        }
        RawHttp.Answer userInfo = get("http://localhost:" + port() + "@evil.example/v2", local);
        assertEquals(400, userInfo.status(), userInfo.toString());
        assertTrue(userInfo.isErrorDocument(), userInfo.toString());
    }

    /** What is not a host (user info, a bad port, odd bytes), or a host named twice, is refused with 400. */
    @Test
    void aHostThatIsNoneOrNamedTwiceIsRefused() {
        String p = ":" + port();
        List<RawHttp.Answer> answers = new ArrayList<>();
        List<String> what = new ArrayList<>();
        for (String host : List.of(
                "localhost:8080@evil",
                "localhost" + p + "@evil.example",
                "user@localhost" + p,
                "localhost:99999",
                "localhost:-1",
                "localhost:80x",
                "local%68ost" + p,
                "[::1" + p,
                "[evil.example]" + p,
                "localhost..",
                "evil.example/x")) {
            answers.add(get("/v2", host));
            what.add("Host: " + host);
        }
        for (List<String> hosts : List.of(
                List.of("localhost" + p, "evil.example"),
                List.of("evil.example", "localhost" + p),
                List.of("localhost" + p, "localhost" + p))) {
            answers.add(get("/v2", "HTTP/1.1", hosts, ""));
            what.add("Hosts " + hosts);
        }
        for (int i = 0; i < answers.size(); i++) {
            RawHttp.Answer answer = answers.get(i);
            assertTrue(answer.status() == 400 || answer.status() == 421, what.get(i) + " -> " + answer);
            assertTrue(answer.isErrorDocument(), what.get(i) + " -> " + answer);
        }
    }

    /** No host at all: HTTP/1.0 needs none (no browser sends one without), HTTP/1.1 must name one. */
    @Test
    void withoutAHostOnlyHttp10IsServed() {
        assertEquals(200, get("/v2/", "HTTP/1.0", List.of(), "").status());
        RawHttp.Answer eleven = get("/v2", "HTTP/1.1", List.of(), "");
        assertEquals(400, eleven.status(), eleven.toString());
        assertTrue(eleven.isErrorDocument(), eleven.toString());
    }
}
