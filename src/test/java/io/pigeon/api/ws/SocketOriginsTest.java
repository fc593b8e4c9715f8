package io.pigeon.api.ws;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The page origins that may open a socket, as {@code pigeon.websocket.allowed-origins} makes them, and the entries
 * that stop the start (each with a message naming the setting). No application: the rule alone.
 */
class SocketOriginsTest {

    @Test
    void byDefaultOnlyPigeonsOwnOrigin() {
        SocketOrigins origins = SocketOrigins.of(Optional.empty());
        assertTrue(origins.allows("http://localhost:8080", "localhost:8080"));
        assertTrue(origins.allows("https://queues.example.com", "queues.example.com"));
        assertTrue(origins.allows("http://queues.example.com", "queues.example.com"));
        assertTrue(origins.allows("https://queues.example.com:443", "queues.example.com"));
        assertFalse(origins.allows("https://queues.example.com:8443", "queues.example.com"));
        assertFalse(origins.allows("http://localhost:3000", "localhost:8080"));
        assertFalse(origins.allows("http://localhost:8080", null));
        assertFalse(origins.allows("null", "localhost:8080"));
        assertFalse(origins.allows("http://localhost:8080/", "localhost:8080"));
    }

    @Test
    void listedOriginsAndAnyOrigin() {
        SocketOrigins origins =
                SocketOrigins.of(Optional.of(List.of("https://App.Example.com", "http://localhost:3000", "")));
        assertTrue(origins.allows("https://app.example.com", "queues.example.com"));
        assertTrue(origins.allows("https://app.example.com:443", "queues.example.com"));
        assertTrue(origins.allows("http://localhost:3000", "localhost:8080"));
        assertTrue(origins.allows("http://localhost:8080", "localhost:8080"));
        assertFalse(origins.allows("http://app.example.com", "queues.example.com"));
        assertFalse(origins.allows("https://app.example.com.evil.example", "queues.example.com"));
        assertFalse(origins.allows("http://localhost:3001", "localhost:8080"));
        SocketOrigins any = SocketOrigins.of(Optional.of(List.of("*")));
        assertTrue(any.allows("null", "localhost:8080"));
        assertTrue(any.allows("http://evil.example", "localhost:8080"));
    }

    @Test
    void anEntryThatIsNotAnOriginStopsTheStart() {
        for (List<String> entries : List.of(
                List.of("app.example.com"),
                List.of("https://app.example.com/"),
                List.of("https://app.example.com/path"),
                List.of("ftp://app.example.com"),
                List.of("ws://app.example.com"),
                List.of("null"),
                List.of("https://user@app.example.com"),
                List.of("https://app.example.com:99999"),
                List.of("*", "https://app.example.com"))) {
            IllegalArgumentException refused = assertThrows(
                    IllegalArgumentException.class, () -> SocketOrigins.of(Optional.of(entries)), entries.toString());
            assertTrue(refused.getMessage().startsWith("pigeon.websocket.allowed-origins: "), refused.getMessage());
        }
    }
}
