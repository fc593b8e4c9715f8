package io.pigeon.accesskeys;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Whatever a caller sends as a signature, the verifier answers with one of AWS's refusals and never throws, nor
 * accepts: mangled Authorization headers, credentials, dates, expiries and signatures, percent-encodings cut short or
 * not UTF-8, thousands of parameters, each drawn from a fixed seed so that a failure repeats.
 */
class SigV4MalformedInputTest {

    private static final Instant NOW = Instant.parse("2026-11-29T17:00:00Z");
    private static final SigV4Verifier VERIFIER = new SigV4Verifier("sqs", Duration.ofMinutes(15));
    private static final KeySecrets ANY_KEY =
            id -> Optional.of(new KeySecrets.KeySecret("p", "secret-of-any-key-00000000000000000000000"));
    private static final List<String> PIECES = List.of(
            "AWS4-HMAC-SHA256",
            " ",
            ",",
            "=",
            "/",
            "Credential=",
            "SignedHeaders=",
            "Signature=",
            "PGNKAAAAAAAAAAAAAAAA",
            "20261129",
            "20261129T170000Z",
            "us-east-1",
            "sqs",
            "aws4_request",
            "host;x-amz-date",
            ";",
            "%",
            "%zz",
            "%C3",
            "%FF%FE",
            "\u1234",
            "\t",
            "0123456789abcdef",
            "X-Amz-Algorithm=",
            "X-Amz-Credential=",
            "X-Amz-Date=",
            "X-Amz-Expires=",
            "X-Amz-SignedHeaders=",
            "X-Amz-Signature=",
            "&",
            "-1",
            "999999999999999999999",
            "..",
            "//");

    @Test
    void everyMalformedSignatureIsRefusedWithAnAwsCode() {
        Random random = new Random(42);
        for (int i = 0; i < 20_000; i++) {
            String authorization = random(random, 12);
            String query = random(random, 12);
            Map<String, List<String>> headers = new LinkedHashMap<>();
            headers.put("Host", List.of("localhost:8080"));
            if (random.nextBoolean()) {
                headers.put("Authorization", List.of(authorization));
            }
            headers.put(random.nextBoolean() ? "X-Amz-Date" : "Date", List.of(random(random, 2)));
            SignedRequest request = new SignedRequest("POST", "/" + random(random, 3), query, headers, new byte[0]);
            SignedCaller caller = VERIFIER.verify(request, NOW, ANY_KEY);
            assertFalse(caller.accepted(), authorization + " / " + query);
            assertNotNull(caller.refusal());
            assertTrue(caller.message().length() < 1200, caller.message());
        }
    }

    @Test
    void aHugeQueryIsReadAndRefused() {
        StringBuilder query = new StringBuilder("X-Amz-Algorithm=AWS4-HMAC-SHA256");
        for (int i = 0; i < 10_000; i++) {
            query.append("&p").append(i).append("=%E2%82%AC");
        }
        SignedRequest request =
                new SignedRequest("GET", "/", query.toString(), Map.of("Host", List.of("h")), new byte[0]);
        assertEquals(
                SignatureRefusal.INCOMPLETE_SIGNATURE,
                VERIFIER.verify(request, NOW, ANY_KEY).refusal());
    }

    private static String random(Random random, int pieces) {
        StringBuilder text = new StringBuilder();
        int count = random.nextInt(pieces + 1);
        for (int i = 0; i < count; i++) {
            text.append(PIECES.get(random.nextInt(PIECES.size())));
        }
        return text.toString();
    }
}
