package io.pigeon.accesskeys;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The verifier against AWS's published Signature Version 4 test suite (the "aws-sig-v4-test-suite" of AWS's general
 * reference: key AKIDEXAMPLE, service "service", us-east-1, 2015-08-30T12:36:00Z). Each case is the suite's request
 * (method, path, query, headers as sent, body) and the signature AWS computed for it, written here from the suite; a
 * verifier that canonicalises one byte differently refuses it. Each case is also checked with one byte of the
 * signature changed, so that a verifier that accepts anything cannot pass.
 */
class SigV4TestSuiteTest {

    private static final String SECRET = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
    private static final Instant NOW = Instant.parse("2015-08-30T12:36:00Z");
    private static final String DATE = "20150830T123600Z";
    private static final SigV4Verifier VERIFIER = new SigV4Verifier("service", Duration.ofMinutes(15));
    private static final KeySecrets KEYS =
            id -> id.equals("AKIDEXAMPLE") ? Optional.of(new KeySecrets.KeySecret("suite", SECRET)) : Optional.empty();

    static Stream<Arguments> suite() {
        return Stream.of(
                get("get-vanilla", "/", "", "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"),
                get(
                        "get-vanilla-empty-query-key",
                        "/",
                        "Param1=value1",
                        "a67d582fa61cc504c4bae71f336f98b97f1ea3c7a6bfe1b6e45aec72011b9aeb"),
                get(
                        "get-vanilla-query-order-key",
                        "/",
                        "Param1=value2&Param1=Value1",
                        "eedbc4e291e521cf13422ffca22be7d2eb8146eecf653089df300a15b2382bd1"),
                get(
                        "get-vanilla-query-order-key-case",
                        "/",
                        "Param2=value2&Param1=value1",
                        "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500"),
                get(
                        "get-vanilla-query-order-value",
                        "/",
                        "Param1=value2&Param1=value1",
                        "5772eed61e12b33fae39ee5e7012498b51d56abc0abb7c60486157bd471c4694"),
                get(
                        "get-vanilla-query-unreserved",
                        "/",
                        UNRESERVED + "=" + UNRESERVED,
                        "9c3e54bfcdf0b19771a7f523ee5669cdf59bc7cc0884027167c21bb143a40197"),
                get(
                        "get-vanilla-utf8-query",
                        "/",
                        "\u1234=bar",
                        "2cdec8eed098649ff3a119c94853b13c643bcf08f8b0a1d91e12c9027818dd04"),
                get(
                        "get-unreserved",
                        "/" + UNRESERVED,
                        "",
                        "07ef7494c76fa4850883e2b006601f940f8a34d404d0cfa977f52a65bbf5f24f"),
                get("get-utf8", "/\u1234", "", "8318018e0b0f223aa2bbf98705b62bb787dc9c0e678f255a891fd03141be5d85"),
                get(
                        "get-space",
                        "/example space/",
                        "",
                        "652487583200325589f1fba4c7e578f72c47cb61beeca81406b39ddec1366741"),
                get(
                        "get-relative",
                        "/example/..",
                        "",
                        "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"),
                get(
                        "get-relative-relative",
                        "/example1/example2/../..",
                        "",
                        "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"),
                get("get-slash", "//", "", "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"),
                get(
                        "get-slash-dot-slash",
                        "/./",
                        "",
                        "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"),
                get(
                        "get-slash-pointless-dot",
                        "/./example",
                        "",
                        "ef75d96142cf21edca26f06005da7988e4f8dc83a165a80865db7089db637ec5"),
                get(
                        "get-slashes",
                        "//example//",
                        "",
                        "9a624bd73a37c9a373b5312afbebe7a714a789de108f0bdfe846570885f57e84"),
                withHeaders(
                        "get-header-key-duplicate",
                        "GET",
                        Map.of("My-Header1", List.of("value2", "value2", "value1")),
                        "",
                        "host;my-header1;x-amz-date",
                        "c9d5ea9f3f72853aea855b47ea873832890dbdd183b4468f858259531a5138ea"),
                withHeaders(
                        "get-header-value-order",
                        "GET",
                        Map.of("My-Header1", List.of("value4", "value1", "value3", "value2")),
                        "",
                        "host;my-header1;x-amz-date",
                        "08c7e5a9acfcfeb3ab6b2185e75ce8b1deb5e634ec47601a50643f830c755c01"),
                withHeaders(
                        "get-header-value-trim",
                        "GET",
                        Map.of("My-Header1", List.of(" value1"), "My-Header2", List.of(" \"a   b   c\"")),
                        "",
                        "host;my-header1;my-header2;x-amz-date",
                        "acc3ed3afb60bb290fc8d2dd0098b9911fcaa05412b367055dee359757a9c736"),
                withHeaders(
                        "post-vanilla",
                        "POST",
                        Map.of(),
                        "",
                        "host;x-amz-date",
                        "5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b"),
                withHeaders(
                        "post-header-key-sort",
                        "POST",
                        Map.of("My-Header1", List.of("value1")),
                        "",
                        "host;my-header1;x-amz-date",
                        "c5410059b04c1ee005303aed430f6e6645f61f4dc9e1461ec8f8916fdf18852c"),
                withHeaders(
                        "post-header-value-case",
                        "POST",
                        Map.of("My-Header1", List.of("VALUE1")),
                        "",
                        "host;my-header1;x-amz-date",
                        "cdbc9802e29d2942e5e10b5bccfdd67c5f22c7c4e8ae67b53629efa58b974b7d"),
                withHeaders(
                        "post-x-www-form-urlencoded",
                        "POST",
                        Map.of(
                                "Content-Type",
                                List.of("application/x-www-form-urlencoded"),
                                "Content-Length",
                                List.of("13")),
                        "Param1=value1",
                        "content-type;host;x-amz-date",
                        "ff11897932ad3f4e8b18135d722051e5ac45fc38421b1da7b9d196a0fe09473a"),
                withHeaders(
                        "post-x-www-form-urlencoded-parameters",
                        "POST",
                        Map.of(
                                "Content-Type",
                                List.of("application/x-www-form-urlencoded; charset=utf8"),
                                "Content-Length",
                                List.of("13")),
                        "Param1=value1",
                        "content-type;host;x-amz-date",
                        "1a72ec8f64bd914b0e42e42607c7fbce7fb2c7465f63e3092b3b0d39fa77a6fe"),
                Arguments.of(
                        "post-vanilla-query",
                        "POST",
                        "/",
                        "Param1=value1",
                        headers(Map.of()),
                        "",
                        "host;x-amz-date",
                        "28038455d6de14eafc1f9222cf5aa6f1a96197d7deb8263271d420d138af7f11"));
    }

    private static final String UNRESERVED = "-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

    @ParameterizedTest(name = "{0}")
    @MethodSource("suite")
    void acceptsTheSuitesSignature(
            String name,
            String method,
            String path,
            String query,
            Map<String, List<String>> headers,
            String body,
            String signedHeaders,
            String signature) {
        SignedCaller caller =
                VERIFIER.verify(request(method, path, query, headers, body, signedHeaders, signature), NOW, KEYS);
        assertTrue(caller.accepted(), name + ": " + caller.message());
        assertEquals("suite", caller.project());
        assertEquals("AKIDEXAMPLE", caller.accessKeyId());

        String changed = (signature.charAt(0) == '0' ? '1' : '0') + signature.substring(1);
        SignedCaller refused =
                VERIFIER.verify(request(method, path, query, headers, body, signedHeaders, changed), NOW, KEYS);
        assertEquals(SignatureRefusal.SIGNATURE_DOES_NOT_MATCH, refused.refusal(), name);
    }

    private static SignedRequest request(
            String method,
            String path,
            String query,
            Map<String, List<String>> headers,
            String body,
            String signedHeaders,
            String signature) {
        Map<String, List<String>> all = new LinkedHashMap<>(headers);
        all.put(
                "Authorization",
                List.of("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/"
                        + "aws4_request, SignedHeaders=" + signedHeaders + ", Signature=" + signature));
        return new SignedRequest(method, path, query, all, body.getBytes(StandardCharsets.UTF_8));
    }

    private static Arguments get(String name, String path, String query, String signature) {
        return Arguments.of(name, "GET", path, query, headers(Map.of()), "", "host;x-amz-date", signature);
    }

    private static Arguments withHeaders(
            String name,
            String method,
            Map<String, List<String>> own,
            String body,
            String signedHeaders,
            String signature) {
        return Arguments.of(name, method, "/", "", headers(own), body, signedHeaders, signature);
    }

    private static Map<String, List<String>> headers(Map<String, List<String>> own) {
        Map<String, List<String>> headers = new LinkedHashMap<>();
        headers.put("Host", List.of("example.amazonaws.com"));
        headers.put("X-Amz-Date", List.of(DATE));
        headers.putAll(own);
        return headers;
    }
}
