package io.pigeon.api.v2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Checksums as Zaqar computes them. Each expected value was computed by Python 3.11's {@code json.dumps} and
 * {@code hashlib.md5} from the same body; the report sample is the sample message of Zaqar's API reference,
 * with the checksum printed there.
 */
class BodyChecksumTest {

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            quoteCharacter = '`',
            value = {
                "\"hello\"                                   | MD5:5deaee1c1332199e5b5bc7c5e4f7f0c2",
                "\"h\u00e9llo\"                              | MD5:15dc44e0b9b2e277e163502e0b6e4466",
                "{\"a\":1,\"b\":[1,2]}                       | MD5:cbe6d9b0738a709682fdb630e2a68250",
                "1.0                                         | MD5:e4c2e8edac362acab7123654b9e73432",
                "[]                                          | MD5:d751713988987e9331980363e24189ce",
                "{}                                          | MD5:99914b932bd37a50b983c5e7c90ae93b",
                "{\"current_bytes\":\"0\",\"event\":\"BackupProgress\",\"total_bytes\":\"99614720\"} | MD5:abf7213555626e29c3cb3e5dc58b3515",
                "\"tab\\tnew\\nline \\u0001 \\u007f quote\\\" back\\\\ slash/\" | MD5:01c438fe6c376b9c2743ce254e45083b",
                "\"\\ud83d\\ude00\"                          | MD5:70d9d3240f9ecb81f997bd8406e8790e",
                "[1e16,1e15,0.0001,1e-05,123.456,-0.0,1E2,1e400,12345678901234567890] | MD5:15be534e03e00f5358f70207558fbb12",
                "{\"z\":null,\"a\":true,\"m\":false}         | MD5:3af9713842b97b055573ea18d0a6a1aa"
            })
    void matchesZaqar(String body, String checksum) {
        assertEquals(checksum, BodyChecksum.of(body.strip()));
    }

    @Test
    void aNullBodyHasNone() {
        assertNull(BodyChecksum.of("null"));
    }
}
