package io.pigeon.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The hosts served, as {@code pigeon.http.allowed-hosts} and {@code quarkus.http.host} make them, and the entries that
 * stop the start (each with a message naming the setting). No application: the rule alone.
 */
class ServedHostsTest {

    private static boolean serves(ServedHosts hosts, String host) {
        return hosts.serves(Authority.parse(host).orElseThrow(() -> new AssertionError("not a host: " + host)));
    }

    @Test
    void byDefaultLocalhostAndEveryAddressAreServed() {
        ServedHosts hosts = ServedHosts.of(Optional.empty(), "0.0.0.0");
        for (String host : List.of(
                "localhost", "LOCALHOST:8080", "localhost.:1", "127.0.0.1", "10.0.0.7:8080", "[::1]", "[FE80::1]:80")) {
            assertTrue(serves(hosts, host), host);
        }
        for (String host : List.of(
                "evil.example",
                "localhost.evil.example",
                "x.localhost",
                "0.0.0.0.evil",
                "pigeon",
                "127.1",
                "0x7f000001")) {
            assertFalse(serves(hosts, host), host);
        }
    }

    @Test
    void theBoundNameIsServed() {
        assertTrue(serves(ServedHosts.of(Optional.empty(), "Pigeon.Internal."), "pigeon.internal:8080"));
        assertFalse(serves(ServedHosts.of(Optional.empty(), "pigeon.internal"), "evil.internal"));
    }

    @Test
    void listedNamesWildcardsAndAnyHost() {
        ServedHosts hosts =
                ServedHosts.of(Optional.of(List.of(" Queues.Example.com ", "*.pigeon.example")), "localhost");
        assertTrue(serves(hosts, "queues.example.com:443"));
        assertTrue(serves(hosts, "QUEUES.EXAMPLE.COM."));
        assertTrue(serves(hosts, "a.pigeon.example"));
        assertTrue(serves(hosts, "a.b.pigeon.example"));
        assertTrue(serves(hosts, "localhost"));
        assertFalse(serves(hosts, "pigeon.example"));
        assertFalse(serves(hosts, "evilpigeon.example"));
        assertFalse(serves(hosts, "queues.example.com.evil.example"));
        assertFalse(serves(hosts, "example.com"));
        ServedHosts any = ServedHosts.of(Optional.of(List.of("*")), "localhost");
        assertTrue(serves(any, "evil.example"));
    }

    @Test
    void anEntryThatIsNotAHostStopsTheStart() {
        for (String entry : List.of(
                "http://queues.example.com",
                "queues.example.com:8080",
                "queues.example.com/",
                "*",
                "*.",
                "*.10.0.0.1",
                "a..b",
                "user@queues.example.com",
                "**.example.com",
                "*.com",
                "*.localhost",
                "queues example.com")) {
            List<String> entries = entry.equals("*") ? List.of("*", "queues.example.com") : List.of(entry);
            IllegalArgumentException refused = assertThrows(
                    IllegalArgumentException.class, () -> ServedHosts.of(Optional.of(entries), "localhost"), entry);
            assertTrue(refused.getMessage().startsWith("pigeon.http.allowed-hosts: "), refused.getMessage());
        }
    }

    @Test
    void authoritiesAreReadStrictly() {
        assertEquals(
                new Authority("localhost", 8080, false),
                Authority.parse("LocalHost.:8080").orElseThrow());
        assertEquals(
                new Authority("[::1]", Authority.NO_PORT, true),
                Authority.parse("[::1]").orElseThrow());
        for (String text : List.of(
                "",
                "localhost:",
                "localhost:65536",
                "localhost:8080@evil",
                "a b",
                "[::1",
                "[x]",
                "local%68ost",
                ":80")) {
            assertTrue(Authority.parse(text).isEmpty(), text);
        }
    }
}
