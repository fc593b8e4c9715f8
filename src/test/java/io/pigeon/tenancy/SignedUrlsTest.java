package io.pigeon.tenancy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.rules.Rejection;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Signatures as Zaqar makes them: the expected values were computed by Zaqar 15's own signing function (its
 * common/urls.py, run under Python 3.11) with the same key and grant.
 */
class SignedUrlsTest {

    private static final Instant NOW = Instant.parse("2026-11-23T12:00:00Z");
    private final SignedUrls urls = new SignedUrls(Optional.of("test-secret".getBytes(StandardCharsets.UTF_8)),
            Clock.fixed(NOW, ZoneOffset.UTC));

    @Test
    void signsWhatZaqarSigns() {
        SignedUrls.Grant grant = urls.sign(List.of("/v2/queues/shared/messages", "/v2/queues/shared/claims"),
                List.of("POST", "GET"), "proj-a", Instant.parse("2030-01-01T00:00:00Z"));
        assertEquals(List.of("/v2/queues/shared/claims", "/v2/queues/shared/messages"), grant.paths());
        assertEquals(List.of("GET", "POST"), grant.methods());
        assertEquals("2030-01-01T00:00:00", grant.expires());
        assertEquals("e1b6a946c58d7375657ef0abd6d03f165787e4972e31831a97932e207cf25aba", grant.signature());
    }

    @Test
    void aMissingProjectIsSignedAsNoneAndTheExpiryIsNormalisedToUtc() {
        SignedUrls.Grant grant = urls.sign(List.of("/v2/queues/shared/messages"), List.of("GET"), null,
                SignedUrls.parseExpires("2030-01-01 12:30:45.123+02:00"));
        assertEquals("2030-01-01T10:30:45", grant.expires());
        assertEquals("dbd07e1e38d1ed6a4c1c4ee49fe95100e273db7755206fe6d2cb1e521b2ab523", grant.signature());
    }

    @Test
    void verifiesItsOwnGrantsAndNothingElse() {
        List<String> paths = List.of("/v2/queues/shared/messages");
        String signature = urls.sign(paths, List.of("GET"), "proj-a", Instant.parse("2030-01-01T00:00:00Z")).signature();
        assertTrue(urls.verifies(paths, List.of("GET"), "proj-a", "2030-01-01T00:00:00", signature));
        assertTrue(urls.verifies(paths, List.of("GET"), "proj-a", "2030-01-01T00:00:00.000Z", signature));
        assertFalse(urls.verifies(paths, List.of("GET"), "proj-b", "2030-01-01T00:00:00", signature));
        assertFalse(urls.verifies(paths, List.of("GET", "DELETE"), "proj-a", "2030-01-01T00:00:00", signature));
        assertFalse(urls.verifies(List.of("/v2/queues/other/messages"), List.of("GET"), "proj-a", "2030-01-01T00:00:00",
                signature));
        assertFalse(urls.verifies(paths, List.of("GET"), "proj-a", "2030-01-01T00:00:01", signature));
        assertFalse(urls.verifies(paths, List.of("GET"), "proj-a", null, signature));
        assertFalse(urls.verifies(paths, List.of("GET"), "proj-a", "1893456000", signature));
        assertFalse(urls.verifies(paths, List.of("GET"), "proj-a", "2030-01-01T00:00:00", signature.toUpperCase()));
        SignedUrls otherKey = new SignedUrls(Optional.of("other".getBytes(StandardCharsets.UTF_8)),
                Clock.fixed(NOW, ZoneOffset.UTC));
        assertFalse(otherKey.verifies(paths, List.of("GET"), "proj-a", "2030-01-01T00:00:00", signature));
    }

    @Test
    void anExpiredGrantVerifiesNothing() {
        List<String> paths = List.of("/v2/queues/shared/messages");
        String signature = urls.sign(paths, List.of("GET"), "p", NOW.plusSeconds(60)).signature();
        SignedUrls later = new SignedUrls(Optional.of("test-secret".getBytes(StandardCharsets.UTF_8)),
                Clock.fixed(NOW.plusSeconds(61), ZoneOffset.UTC));
        assertTrue(urls.verifies(paths, List.of("GET"), "p", "2026-11-23T12:01:00", signature));
        assertFalse(later.verifies(paths, List.of("GET"), "p", "2026-11-23T12:01:00", signature));
    }

    @Test
    void refusesWhatZaqarRefuses() {
        assertEquals("`expires` is lower than the current time", assertThrows(Rejection.class,
                () -> urls.sign(List.of("/p"), List.of("GET"), "p", NOW)).getMessage());
        SignedUrls keyless = new SignedUrls(Optional.empty(), Clock.fixed(NOW, ZoneOffset.UTC));
        assertEquals("The `key` can't be None", assertThrows(Rejection.class,
                () -> keyless.sign(List.of("/p"), List.of("GET"), "p", NOW.plusSeconds(60))).getMessage());
        assertFalse(keyless.verifies(List.of("/p"), List.of("GET"), "p", "2030-01-01T00:00:00", "00"));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "2030-01-01T00:00:00        | 2030-01-01T00:00:00Z",
            "2030-01-01 00:00:00        | 2030-01-01T00:00:00Z",
            "2030-01-01T02:00:00+02:00  | 2030-01-01T00:00:00Z",
            "2030-01-01T00:00:00.5Z     | 2030-01-01T00:00:00.5Z",
            "2030-01-01                 | 2030-01-01T00:00:00Z"})
    void readsExpiriesAsZaqarDoes(String text, String instant) {
        assertEquals(Instant.parse(instant), SignedUrls.parseExpires(text));
    }

    @Test
    void refusesAnIntegerExpiry() {
        assertThrows(IllegalArgumentException.class, () -> SignedUrls.parseExpires("1893456000"));
        assertThrows(IllegalArgumentException.class, () -> SignedUrls.parseExpires("tomorrow"));
    }
}
