package io.pigeon.api.ws;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.testing.Api;
import io.pigeon.testing.RawHttp;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A web page may open a socket only from Pigeon's own origin (auth {@code none}, no {@code
 * pigeon.websocket.allowed-origins}): any other {@code Origin} a browser can send, and every other spelling a raw client
 * can, is refused with 403 and the error document before the upgrade, at both socket paths; a request without
 * {@code Origin} (not a browser) is upgraded as before. Raw sockets, so that the headers are exactly the ones written.
 */
@QuarkusTest
class SocketOriginTest {

    private static final List<String> SOCKET_PATHS = List.of("/", "/v2");

    private final String project = Api.newProject();

    private static int port() {
        return RestAssured.port;
    }

    /** An upgrade at {@code path} with {@code Host: host} and {@code extra} header lines. */
    private RawHttp.Answer upgrade(String path, String host, String extra) {
        return RawHttp.exchange(
                port(),
                "GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\n" + RawHttp.UPGRADE_HEADERS + "X-Project-Id: "
                        + project + "\r\n" + extra + "\r\n");
    }

    @Test
    void pigeonsOwnOriginAndNoOriginAreUpgraded() {
        String local = "localhost:" + port();
        String address = "127.0.0.1:" + port();
        for (String path : SOCKET_PATHS) {
            for (String[] hostAndOrigin : List.of(
                    new String[] {local, null},
                    new String[] {local, "http://" + local},
                    // python-zaqarclient's websocket-client: http:// and the Host it sends, even over wss.
                    new String[] {local, "https://" + local},
                    new String[] {local, "HTTP://LOCALHOST:" + port()},
                    new String[] {"localhost." + ":" + port(), "http://localhost.:" + port()},
                    new String[] {address, "http://" + address},
                    new String[] {"[::1]:" + port(), "http://[::1]:" + port()},
                    new String[] {"localhost", "http://localhost"},
                    new String[] {"localhost", "http://localhost:80"})) {
                String origin = hostAndOrigin[1];
                RawHttp.Answer answer =
                        upgrade(path, hostAndOrigin[0], origin == null ? "" : "Origin: " + origin + "\r\n");
                assertEquals(
                        101,
                        answer.status(),
                        path + " Host " + hostAndOrigin[0] + " Origin " + origin + " -> " + answer);
            }
        }
    }

    @Test
    void anyOtherOriginIsRefusedBeforeTheUpgrade() {
        String local = "localhost:" + port();
        for (String path : SOCKET_PATHS) {
            for (String origin : List.of(
                    "null",
                    "http://evil.example",
                    "https://evil.example:" + port(),
                    "http://localhost.evil.example:" + port(),
                    "http://evil.example/" + local,
                    // Another port of this machine (a development server, another service) is another origin.
                    "http://localhost:" + (port() + 1),
                    "http://localhost",
                    "https://localhost",
                    // The same machine by another name is another origin too.
                    "http://127.0.0.1:" + port(),
                    "http://[::1]:" + port(),
                    // Not how a browser writes an origin: refused rather than guessed at.
                    "http://" + local + "/",
                    "http://" + local + "/path",
                    "http://user@" + local,
                    local,
                    "//" + local,
                    "file://",
                    "chrome-extension://abcdefghijklmnop",
                    "")) {
                RawHttp.Answer answer = upgrade(path, local, "Origin: " + origin + "\r\n");
                assertRefused(answer, path + " Origin '" + origin + "'");
                if (!origin.isEmpty()) {
                    assertTrue(
                            answer.body().contains(origin.length() > 100 ? origin.substring(0, 100) : origin),
                            "the document names the origin: " + answer);
                }
            }
            // A page's origin must be allowed wherever the request carries one.
            assertRefused(
                    upgrade(path, local, "Origin: http://" + local + "\r\nOrigin: http://evil.example\r\n"),
                    path + " two Origins");
            assertRefused(
                    upgrade(path, local, "Sec-WebSocket-Origin: http://evil.example\r\n"),
                    path + " the drafts' Sec-WebSocket-Origin");
        }
        // Whatever the path, and whatever the rest of the upgrade headers say.
        assertRefused(
                RawHttp.exchange(
                        port(),
                        "GET /v2/queues HTTP/1.1\r\nHost: " + local
                                + "\r\nUpgrade: WebSocket\r\nConnection: Upgrade\r\n"
                                + "Origin: http://evil.example\r\n\r\n"),
                "an Upgrade without a key");
    }

    /** Ordinary requests are not the socket's check: a cross-origin GET is answered as before. */
    @Test
    void ordinaryRequestsAreNotLookedAt() {
        RawHttp.Answer answer = RawHttp.exchange(
                port(),
                "GET /v2/ HTTP/1.1\r\nHost: localhost:" + port() + "\r\nOrigin: http://evil.example\r\n"
                        + "Connection: close\r\n\r\n");
        assertEquals(200, answer.status(), answer.toString());
    }

    private static void assertRefused(RawHttp.Answer answer, String what) {
        assertEquals(403, answer.status(), what + " -> " + answer);
        assertTrue(answer.isErrorDocument(), what + " -> " + answer);
        assertTrue(answer.body().contains("pigeon.websocket.allowed-origins"), what + " -> " + answer);
    }
}
