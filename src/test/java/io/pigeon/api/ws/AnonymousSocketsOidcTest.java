package io.pigeon.api.ws;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.tenancy.OidcProfile;
import io.pigeon.tenancy.Tokens;
import io.pigeon.testing.Api;
import io.pigeon.testing.Eventually;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * In OIDC mode sockets that never authenticate have a bound of their own (pigeon.websocket.max-anonymous-sockets, 20
 * in this profile), apart from those that act for someone (max-sockets, 40 here): past it the one that waited longest
 * is closed, so that however many anonymous sockets are open a client that authenticates as soon as it upgrades gets
 * in (before, anonymous sockets filled max-sockets and every upgrade was refused 503 for the authentication timeout).
 * One client source holds max-sockets-per-address (10 here) at most. Each 127/8 address is another client source.
 */
@QuarkusTest
@TestProfile(OidcProfile.class)
class AnonymousSocketsOidcTest {

    private static final int ANONYMOUS = 20;
    private static final int PER_ADDRESS = 10;

    private final String project = Api.newProject();

    private String authenticate(RawSocket socket) {
        socket.text("{\"action\":\"authenticate\",\"headers\":{\"X-Auth-Token\":\"" + Tokens.valid(List.of(project))
                + "\",\"X-Project-ID\":\"" + project + "\"}}");
        return socket.readText(Duration.ofSeconds(10));
    }

    private String queueList(RawSocket socket) {
        socket.text(
                "{\"action\":\"queue_list\",\"headers\":{\"Client-ID\":\"3381af92-2b9e-11e3-b191-71861300734c\",\"X-Project-ID\":\""
                        + project + "\"}}");
        return socket.readText(Duration.ofSeconds(10));
    }

    @Test
    void socketsThatNeverAuthenticateCannotKeepOutOneThatDoes() {
        List<RawSocket> flood = new ArrayList<>();
        try {
            // Three times the anonymous bound, from six addresses (each within its share): every upgrade is taken.
            for (int i = 0; i < 3 * ANONYMOUS; i++) {
                flood.add(RawSocket.openFrom("127.0.0." + (2 + i / PER_ADDRESS)));
            }
            try (RawSocket client = RawSocket.open()) {
                String authentified = authenticate(client);
                assertTrue(authentified != null && authentified.contains("Authentified."), "answered: " + authentified);
                String listed = queueList(client);
                assertTrue(listed != null && listed.contains("\"status\":200"), "answered: " + listed);
            }
            // At no time more anonymous sockets than the bound: of the flood, those not closed to make room are 20 at
            // most. (Some may have been closed for the 4 s authentication timeout meanwhile: fewer are open then.)
            int open = 0;
            int madeRoom = 0;
            for (RawSocket socket : flood) {
                RawSocket.Closed closed = socket.readClose(Duration.ofMillis(100));
                if (closed.code() == -2) {
                    open++;
                } else if (closed.code() == 1008 && closed.reason().equals(SocketTransport.ROOM_FOR_ANONYMOUS)) {
                    madeRoom++;
                }
            }
            assertTrue(open <= ANONYMOUS, open + " anonymous sockets of the flood still open");
            assertTrue(madeRoom > 0, "no socket was closed to make room");
        } finally {
            flood.forEach(RawSocket::close);
        }
    }

    @Test
    void oneAddressHoldsItsShareOfSocketsAndAnotherIsServed() {
        List<RawSocket> held = new ArrayList<>();
        try {
            // Authenticated, so that neither the anonymous bound nor the authentication timeout closes them.
            for (int i = 0; i < PER_ADDRESS; i++) {
                RawSocket socket = RawSocket.openFrom("127.0.0.20");
                held.add(socket);
                String authentified = authenticate(socket);
                assertTrue(authentified != null && authentified.contains("Authentified."), "answered: " + authentified);
            }
            IllegalStateException refused =
                    assertThrows(IllegalStateException.class, () -> RawSocket.openFrom("127.0.0.20"));
            assertTrue(refused.getMessage().contains("HTTP/1.1 503"), refused.getMessage());
            try (RawSocket other = RawSocket.openFrom("127.0.0.21")) {
                String authentified = authenticate(other);
                assertTrue(authentified != null && authentified.contains("Authentified."), "answered: " + authentified);
            }
        } finally {
            held.forEach(RawSocket::close);
        }
        // Closed, they give the address its share back.
        Eventually.await("127.0.0.20 upgrades again", Duration.ofSeconds(10), () -> {
            try (RawSocket again = RawSocket.openFrom("127.0.0.20")) {
                return true;
            } catch (IllegalStateException refusedStill) {
                return false;
            }
        });
    }
}
