package io.pigeon.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.tenancy.OidcProfile;
import io.pigeon.testing.RawHttp;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.RestAssured;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code pigeon.http.allowed-hosts} and {@code pigeon.websocket.allowed-origins} set as behind an ingress, in OIDC mode
 * (the profile lists {@code queues.example.com}, {@code *.pigeon.example}, {@code https://app.example.com} and
 * {@code http://localhost:3000}): the listed hosts and origins are served besides the defaults, nothing else is, and a
 * page of another origin is refused before any token is looked at.
 */
@QuarkusTest
@TestProfile(OidcProfile.class)
class HostAndOriginListsTest {

    private static int port() {
        return RestAssured.port;
    }

    private static RawHttp.Answer get(String host) {
        return RawHttp.exchange(
                port(), "GET /q/health/live HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n");
    }

    private static RawHttp.Answer upgrade(String host, String origin) {
        return RawHttp.exchange(
                port(),
                "GET / HTTP/1.1\r\nHost: " + host + "\r\n" + RawHttp.UPGRADE_HEADERS
                        + (origin == null ? "" : "Origin: " + origin + "\r\n") + "\r\n");
    }

    @Test
    void listedHostsAreServedBesidesTheDefaults() {
        for (String host : List.of(
                "queues.example.com",
                "QUEUES.example.com:443",
                "a.pigeon.example",
                "b.a.pigeon.example:" + port(),
                "localhost:" + port(),
                "10.244.1.17:" + port())) {
            assertEquals(200, get(host).status(), host);
        }
        for (String host :
                List.of("pigeon.example", "evilpigeon.example", "queues.example.com.evil.example", "evil.example")) {
            RawHttp.Answer answer = get(host);
            assertEquals(421, answer.status(), host + " -> " + answer);
            assertTrue(answer.isErrorDocument(), host + " -> " + answer);
        }
    }

    @Test
    void listedOriginsOpenSocketsBesidesPigeonsOwn() {
        String local = "localhost:" + port();
        for (String origin : List.of("https://app.example.com", "http://localhost:3000", "http://" + local)) {
            assertEquals(101, upgrade(local, origin).status(), origin);
        }
        assertEquals(101, upgrade(local, null).status());
        // Through the ingress's name, the page of that name is Pigeon's own.
        assertEquals(
                101, upgrade("queues.example.com", "https://queues.example.com").status());
        for (String origin : List.of(
                "http://app.example.com",
                "https://app.example.com:8443",
                "https://app.example.com.evil.example",
                "http://localhost:3001",
                "https://queues.example.com",
                "null")) {
            RawHttp.Answer answer = upgrade(local, origin);
            assertEquals(403, answer.status(), origin + " -> " + answer);
            assertTrue(answer.body().contains("pigeon.websocket.allowed-origins"), origin + " -> " + answer);
        }
    }
}
