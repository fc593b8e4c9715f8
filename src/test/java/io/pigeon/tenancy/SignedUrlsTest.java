package io.pigeon.tenancy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.rules.Rejection;
import io.pigeon.testing.TestConfig;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Signatures as Zaqar makes them: the expected values were computed by Zaqar 15's own signing function (its
 * common/urls.py, run under Python 3.11) with the same key and grant.
 */
class SignedUrlsTest {

    private static final Instant NOW = Instant.parse("2026-11-23T12:00:00Z");
    /** Zaqar's test key (shorter than Pigeon accepts from its configuration) and no practical lifetime bound. */
    private final SignedUrls urls = at(NOW, Map.of("", bytes("test-secret")), "", Duration.ofDays(36500));

    private static SignedUrls at(Instant now, Map<String, byte[]> keys, String signingKey, Duration maxLifetime) {
        return new SignedUrls(keys, signingKey, maxLifetime, Clock.fixed(now, ZoneOffset.UTC));
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void signsWhatZaqarSigns() {
        SignedUrls.Grant grant = urls.sign(
                List.of("/v2/queues/shared/messages", "/v2/queues/shared/claims"),
                List.of("POST", "GET"),
                "proj-a",
                Instant.parse("2030-01-01T00:00:00Z"));
        assertEquals(List.of("/v2/queues/shared/claims", "/v2/queues/shared/messages"), grant.paths());
        assertEquals(List.of("GET", "POST"), grant.methods());
        assertEquals("2030-01-01T00:00:00", grant.expires());
        assertEquals("e1b6a946c58d7375657ef0abd6d03f165787e4972e31831a97932e207cf25aba", grant.signature());
    }

    @Test
    void aGrantIsAlwaysForOneProjectAndItsExpiryIsNormalisedToUtc() {
        SignedUrls.Grant grant = urls.sign(
                List.of("/v2/queues/shared/messages"),
                List.of("GET"),
                "p",
                SignedUrls.parseExpires("2030-01-01 12:30:45.123+02:00"));
        assertEquals("2030-01-01T10:30:45", grant.expires());
        assertThrows(
                NullPointerException.class,
                () -> urls.sign(
                        List.of("/v2/queues/shared/messages"),
                        List.of("GET"),
                        null,
                        Instant.parse("2030-01-01T00:00:00Z")));
        assertFalse(urls.verifies(grant.paths(), grant.methods(), null, grant.expires(), grant.signature()));
    }

    @Test
    void verifiesItsOwnGrantsAndNothingElse() {
        List<String> paths = List.of("/v2/queues/shared/messages");
        String signature = urls.sign(paths, List.of("GET"), "proj-a", Instant.parse("2030-01-01T00:00:00Z"))
                .signature();
        assertTrue(urls.verifies(paths, List.of("GET"), "proj-a", "2030-01-01T00:00:00", signature));
        // The expiry must be the signed text itself, not another spelling of the same instant.
        for (String spelled : List.of(
                "2030-01-01T00:00:00.000Z",
                "2030-01-01 00:00:00",
                "2030-01-01T00:00:00Z",
                "2030-01-01T01:00:00+01:00",
                "2030-01-01",
                " 2030-01-01T00:00:00")) {
            assertFalse(urls.verifies(paths, List.of("GET"), "proj-a", spelled, signature), spelled);
        }
        assertFalse(urls.verifies(paths, List.of("GET"), "proj-b", "2030-01-01T00:00:00", signature));
        assertFalse(urls.verifies(paths, List.of("GET", "DELETE"), "proj-a", "2030-01-01T00:00:00", signature));
        assertFalse(urls.verifies(
                List.of("/v2/queues/other/messages"), List.of("GET"), "proj-a", "2030-01-01T00:00:00", signature));
        assertFalse(urls.verifies(paths, List.of("GET"), "proj-a", "2030-01-01T00:00:01", signature));
        assertFalse(urls.verifies(paths, List.of("GET"), "proj-a", null, signature));
        assertFalse(urls.verifies(paths, List.of("GET"), "proj-a", "1893456000", signature));
        assertFalse(urls.verifies(paths, List.of("GET"), "proj-a", "2030-01-01T00:00:00", signature.toUpperCase()));
        SignedUrls otherKey = at(NOW, Map.of("", bytes("other")), "", Duration.ofDays(36500));
        assertFalse(otherKey.verifies(paths, List.of("GET"), "proj-a", "2030-01-01T00:00:00", signature));
    }

    @Test
    void anExpiredGrantVerifiesNothing() {
        List<String> paths = List.of("/v2/queues/shared/messages");
        String signature =
                urls.sign(paths, List.of("GET"), "p", NOW.plusSeconds(60)).signature();
        SignedUrls later = at(NOW.plusSeconds(61), Map.of("", bytes("test-secret")), "", Duration.ofDays(36500));
        assertTrue(urls.verifies(paths, List.of("GET"), "p", "2026-11-23T12:01:00", signature));
        assertFalse(later.verifies(paths, List.of("GET"), "p", "2026-11-23T12:01:00", signature));
    }

    @Test
    void refusesWhatZaqarRefuses() {
        assertEquals(
                "`expires` is lower than the current time",
                assertThrows(Rejection.class, () -> urls.sign(List.of("/p"), List.of("GET"), "p", NOW))
                        .getMessage());
        SignedUrls keyless = at(NOW, Map.of(), "", Duration.ofDays(7));
        assertEquals(
                "The `key` can't be None",
                assertThrows(
                                Rejection.class,
                                () -> keyless.sign(List.of("/p"), List.of("GET"), "p", NOW.plusSeconds(60)))
                        .getMessage());
        assertFalse(keyless.verifies(List.of("/p"), List.of("GET"), "p", "2030-01-01T00:00:00", "00"));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "2030-01-01T00:00:00        | 2030-01-01T00:00:00Z",
                "2030-01-01 00:00:00        | 2030-01-01T00:00:00Z",
                "2030-01-01T02:00:00+02:00  | 2030-01-01T00:00:00Z",
                "2030-01-01T00:00:00.5Z     | 2030-01-01T00:00:00.5Z",
                "2030-01-01                 | 2030-01-01T00:00:00Z"
            })
    void readsExpiriesAsZaqarDoes(String text, String instant) {
        assertEquals(Instant.parse(instant), SignedUrls.parseExpires(text));
    }

    @Test
    void refusesAnIntegerExpiry() {
        assertThrows(IllegalArgumentException.class, () -> SignedUrls.parseExpires("1893456000"));
        assertThrows(IllegalArgumentException.class, () -> SignedUrls.parseExpires("tomorrow"));
    }

    @Test
    void aGrantLivesNoLongerThanTheLongestLifetime() {
        SignedUrls week = at(NOW, Map.of("", bytes("test-secret")), "", Duration.ofDays(7));
        Rejection refused = assertThrows(
                Rejection.class,
                () -> week.sign(
                        List.of("/v2/queues/q/messages"),
                        List.of("GET"),
                        "p",
                        NOW.plus(Duration.ofDays(7)).plusSeconds(1)));
        assertEquals(
                "`expires` must be at most 604800 seconds from now (pigeon.signed-url.max-lifetime)",
                refused.getMessage());
        SignedUrls.Grant lastSecond =
                week.sign(List.of("/v2/queues/q/messages"), List.of("GET"), "p", NOW.plus(Duration.ofDays(7)));
        assertTrue(week.verifies(
                lastSecond.paths(), lastSecond.methods(), "p", lastSecond.expires(), lastSecond.signature()));
        // A grant signed when a longer lifetime was allowed is not accepted beyond today's bound.
        SignedUrls.Grant year =
                urls.sign(List.of("/v2/queues/q/messages"), List.of("GET"), "p", NOW.plus(Duration.ofDays(365)));
        assertTrue(urls.verifies(year.paths(), year.methods(), "p", year.expires(), year.signature()));
        assertFalse(week.verifies(year.paths(), year.methods(), "p", year.expires(), year.signature()));
    }

    @Test
    void keysRotateByTheIdTheirSignaturesCarry() {
        byte[] old = bytes("an-old-key-that-is-at-least-32-bytes");
        byte[] fresh = bytes("a-new-key-that-is-also-32-bytes-or-more");
        SignedUrls before = at(NOW, Map.of("", old), "", Duration.ofDays(7));
        SignedUrls during = at(NOW, Map.of("", old, "k2", fresh), "k2", Duration.ofDays(7));
        SignedUrls after = at(NOW, Map.of("k2", fresh), "k2", Duration.ofDays(7));
        List<String> paths = List.of("/v2/queues/q/messages");
        SignedUrls.Grant unnamed = before.sign(paths, List.of("GET"), "p", NOW.plusSeconds(600));
        SignedUrls.Grant named = during.sign(paths, List.of("GET"), "p", NOW.plusSeconds(600));
        assertTrue(unnamed.signature().matches("[0-9a-f]{64}"), unnamed.signature());
        assertTrue(named.signature().matches("k2:[0-9a-f]{64}"), named.signature());
        assertTrue(during.verifies(paths, List.of("GET"), "p", unnamed.expires(), unnamed.signature()));
        assertTrue(during.verifies(paths, List.of("GET"), "p", named.expires(), named.signature()));
        assertTrue(after.verifies(paths, List.of("GET"), "p", named.expires(), named.signature()));
        assertFalse(after.verifies(paths, List.of("GET"), "p", unnamed.expires(), unnamed.signature()));
        assertFalse(before.verifies(paths, List.of("GET"), "p", named.expires(), named.signature()));
        // The id picks the key: the same hex under another id, or under none, is not the grant.
        String hex = named.signature().substring(3);
        assertFalse(during.verifies(paths, List.of("GET"), "p", named.expires(), hex));
        assertFalse(during.verifies(paths, List.of("GET"), "p", named.expires(), ":" + hex));
        assertFalse(during.verifies(paths, List.of("GET"), "p", named.expires(), "k3:" + hex));
    }

    @Test
    void aShortKeyOrAMalformedKeyIdStopsTheStart() {
        assertThrows(
                IllegalStateException.class, () -> SignedUrls.configuredKeys(config("test-signing-key", Map.of())));
        assertThrows(IllegalStateException.class, () -> SignedUrls.configuredKeys(config(null, Map.of("k1", "short"))));
        assertThrows(
                IllegalStateException.class,
                () -> SignedUrls.configuredKeys(
                        config(null, Map.of("k:1", "a-key-that-is-long-enough-for-hmac-sha256"))));
        assertEquals(
                2,
                SignedUrls.configuredKeys(config(
                                "a-key-that-is-long-enough-for-hmac-sha256",
                                Map.of("k1", "another-key-that-is-long-enough-too!")))
                        .size());
        assertThrows(IllegalStateException.class, () -> at(NOW, Map.of("", bytes("x")), "k9", Duration.ofDays(1)));
    }

    /** The signed-URL settings as a configuration gives them (the interface's methods carry constraints). */
    private static SignedUrlSettings config(String secretKey, Map<String, String> keys) {
        Map<String, String> values = new HashMap<>();
        if (secretKey != null) {
            values.put("pigeon.signed-url.secret-key", secretKey);
        }
        keys.forEach((id, key) -> values.put("pigeon.signed-url.keys." + id, key));
        return TestConfig.settings(SignedUrlSettings.class, values);
    }

    @ParameterizedTest(name = "{0} grants {1}: {2}")
    @CsvSource(
            delimiter = '|',
            value = {
                "/v2/queues/q/messages                 | messages of v2 queues q      | true",
                "/v2/queues/q/messages                 | messages of v2 queues q2     | false",
                "/v2/queues/q/messages                 | claims of v2 queues q        | false",
                "/v2/queues/q/messages                 | messages of v1.1 queues q    | false",
                "/v2/queues/q/messages                 | messages of v2 topics q      | false",
                "/v2/queues/q/subscriptions            | subscriptions of v2 queues q | true",
                "/v2/queues/q/subscriptions            | confirm 1 of v2 queues q     | false",
                "/v2/queues/q/subscriptions/1/confirm  | confirm 1 of v2 queues q     | true",
                "/v2/queues/q/subscriptions/1/confirm  | confirm 2 of v2 queues q     | false",
                "/v2/queues/q/subscriptions/1/confirm  | subscriptions of v2 queues q | false",
                "/v2/topics/t.x/subscriptions/1/confirm | confirm 1 of v2 topics t.x  | true",
                "/v2/queues/q/messages/                | messages of v2 queues q      | false",
                "/v2/queues/q/messages/../../q2/messages | messages of v2 queues q2   | false",
                "/v2/queues/q                          | messages of v2 queues q      | false",
                "/v2/queues                            | messages of v2 queues q      | false",
                "v2/queues/q/messages                  | messages of v2 queues q      | false",
                "/v2/queues/q/share                    | messages of v2 queues q      | false",
                "/v2/queues/q/messages/1/confirm       | confirm 1 of v2 queues q     | false"
            })
    void aGrantedPathNamesOneResourceOfOneQueue(String granted, String target, boolean grants) {
        String[] words = target.split(" ");
        SignedTarget asked = words[0].equals("confirm")
                ? SignedTarget.confirmation(words[3], words[4], words[5], words[1])
                : SignedTarget.of(words[2], words[3], words[4], SignedTarget.Kind.valueOf(words[0].toUpperCase()));
        assertEquals(grants, SignedUrls.grants(granted, asked));
    }
}
