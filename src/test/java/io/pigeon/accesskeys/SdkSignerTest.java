package io.pigeon.accesskeys;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4FamilyHttpSigner;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;

/**
 * The verifier against the AWS SDK for Java v2's own SigV4 signer (the one every SQS call of that SDK goes through):
 * requests signed by the SDK, in the header form and the pre-signed query form, are accepted; the same requests with
 * a header, the body, the query, the key or the clock changed are refused with the code AWS gives.
 */
class SdkSignerTest {

    private static final String KEY_ID = "PGNKTESTKEY000000001";
    private static final String SECRET = "c2VjcmV0IG9mIHRoZSB0ZXN0IGtleSwgNDAgY2hh";
    private static final Instant SIGNED_AT = Instant.parse("2026-11-29T17:00:00Z");
    private static final SigV4Verifier VERIFIER = new SigV4Verifier("sqs", Duration.ofMinutes(15));
    private static final KeySecrets KEYS =
            id -> id.equals(KEY_ID) ? Optional.of(new KeySecrets.KeySecret("project-a", SECRET)) : Optional.empty();
    private static final String SEND =
            "{\"QueueUrl\":\"http://localhost:8080/000000000001/jobs\",\"MessageBody\":\"hi\"}";

    @Test
    void acceptsAJsonRequestTheSdkSigned() {
        SignedCaller caller = VERIFIER.verify(jsonRequest(SEND), SIGNED_AT, KEYS);
        assertTrue(caller.accepted(), caller.message());
        assertEquals("project-a", caller.project());
        assertEquals(KEY_ID, caller.accessKeyId());
    }

    @Test
    void refusesAChangedHeaderBodyOrQuery() {
        SignedRequest signed = jsonRequest(SEND);
        assertRefused(
                SignatureRefusal.SIGNATURE_DOES_NOT_MATCH, withHeader(signed, "x-amz-target", "AmazonSQS.DeleteQueue"));
        assertRefused(
                SignatureRefusal.SIGNATURE_DOES_NOT_MATCH,
                new SignedRequest(
                        signed.method(),
                        signed.rawPath(),
                        signed.rawQuery(),
                        signed.headers(),
                        SEND.replace("hi", "ho").getBytes(StandardCharsets.UTF_8)));
        assertRefused(
                SignatureRefusal.SIGNATURE_DOES_NOT_MATCH,
                new SignedRequest(
                        signed.method(), signed.rawPath(), "Action=DeleteQueue", signed.headers(), signed.body()));
        assertRefused(
                SignatureRefusal.SIGNATURE_DOES_NOT_MATCH,
                new SignedRequest(
                        signed.method(), "/000000000002/jobs", signed.rawQuery(), signed.headers(), signed.body()));
        assertRefused(SignatureRefusal.SIGNATURE_DOES_NOT_MATCH, withHeader(signed, "host", "elsewhere:8080"));
    }

    @Test
    void readsHeadersGivenAsLinesInAnyCase() {
        SignedRequest signed = jsonRequest(SEND);
        List<Map.Entry<String, String>> lines = new ArrayList<>();
        signed.headers()
                .forEach((name, values) -> values.forEach(
                        value -> lines.add(Map.entry(name.equals("x-amz-target") ? "X-AMZ-Target" : name, value))));
        lines.add(Map.entry("X-Unsigned", "any"));
        SignedCaller caller = VERIFIER.verify(
                SignedRequest.ofHeaderLines("POST", "/", "", lines, SEND.getBytes(StandardCharsets.UTF_8)),
                SIGNED_AT,
                KEYS);
        assertTrue(caller.accepted(), caller.message());
    }

    @Test
    void refusesAnUnknownKeyAndAWrongSecret() {
        SignedRequest signed = jsonRequest(SEND);
        assertEquals(
                SignatureRefusal.INVALID_CLIENT_TOKEN_ID,
                VERIFIER.verify(signed, SIGNED_AT, id -> Optional.empty()).refusal());
        assertEquals(
                SignatureRefusal.SIGNATURE_DOES_NOT_MATCH,
                VERIFIER.verify(
                                signed,
                                SIGNED_AT,
                                id -> Optional.of(new KeySecrets.KeySecret("project-a", SECRET + "x")))
                        .refusal());
    }

    @Test
    void acceptsFifteenMinutesOfSkewAndNoMore() {
        SignedRequest signed = jsonRequest(SEND);
        for (Duration skew : List.of(Duration.ofMinutes(14), Duration.ofMinutes(-14), Duration.ofMinutes(15))) {
            assertTrue(VERIFIER.verify(signed, SIGNED_AT.plus(skew), KEYS).accepted(), skew.toString());
        }
        for (Duration skew : List.of(Duration.ofMinutes(16), Duration.ofMinutes(-16), Duration.ofDays(1))) {
            assertEquals(
                    SignatureRefusal.REQUEST_EXPIRED,
                    VERIFIER.verify(signed, SIGNED_AT.plus(skew), KEYS).refusal(),
                    skew.toString());
        }
    }

    @Test
    void acceptsAQueryStringTheSdkPresignedUntilItExpires() {
        SdkHttpRequest get = SdkHttpRequest.builder()
                .method(SdkHttpMethod.GET)
                .uri(URI.create("http://localhost:8080/000000000001/jobs"))
                .putRawQueryParameter("Action", "SendMessage")
                .putRawQueryParameter("MessageBody", "a b+c/d=é&~*")
                .putRawQueryParameter("Version", "2012-11-05")
                .build();
        SignedRequest signed = sign(get, null, builder -> builder.putProperty(
                        AwsV4FamilyHttpSigner.AUTH_LOCATION, AwsV4FamilyHttpSigner.AuthLocation.QUERY_STRING)
                .putProperty(AwsV4FamilyHttpSigner.EXPIRATION_DURATION, Duration.ofMinutes(5)));
        assertTrue(signed.rawQuery().contains("X-Amz-Signature="), signed.rawQuery());
        assertTrue(VERIFIER.verify(signed, SIGNED_AT.plusSeconds(299), KEYS).accepted());
        assertEquals(
                SignatureRefusal.REQUEST_EXPIRED,
                VERIFIER.verify(signed, SIGNED_AT.plusSeconds(301), KEYS).refusal());
        assertEquals(
                SignatureRefusal.REQUEST_EXPIRED,
                VERIFIER.verify(signed, SIGNED_AT.minus(Duration.ofMinutes(16)), KEYS)
                        .refusal());
        assertRefused(
                SignatureRefusal.SIGNATURE_DOES_NOT_MATCH,
                new SignedRequest(
                        "GET",
                        signed.rawPath(),
                        signed.rawQuery().replace("SendMessage", "DeleteQueue"),
                        signed.headers(),
                        signed.body()));
        assertRefused(
                SignatureRefusal.SIGNATURE_DOES_NOT_MATCH,
                new SignedRequest(
                        "GET", signed.rawPath(), signed.rawQuery() + "&Extra=1", signed.headers(), signed.body()));
        assertRefused(
                SignatureRefusal.SIGNATURE_DOES_NOT_MATCH,
                new SignedRequest("POST", signed.rawPath(), signed.rawQuery(), signed.headers(), signed.body()));
        // a body sent with a pre-signed URL is signed or refused, never carried along unsigned
        assertRefused(
                SignatureRefusal.SIGNATURE_DOES_NOT_MATCH,
                new SignedRequest(
                        "GET",
                        signed.rawPath(),
                        signed.rawQuery(),
                        signed.headers(),
                        "Action=DeleteQueue".getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void aPlusInAPresignedQueryCannotStandForTheSignedPlus() {
        // The SQS door reads a query string as a form (a raw '+' is a space); were a raw '+' canonicalised as '%2B', a
        // holder of a pre-signed URL could turn a signed "b+c" into the "b c" the action reads, signature intact.
        SdkHttpRequest get = SdkHttpRequest.builder()
                .method(SdkHttpMethod.GET)
                .uri(URI.create("http://localhost:8080/000000000001/jobs"))
                .putRawQueryParameter("Action", "SendMessage")
                .putRawQueryParameter("MessageBody", "b+c")
                .putRawQueryParameter("Version", "2012-11-05")
                .build();
        SignedRequest signed = sign(get, null, builder -> builder.putProperty(
                        AwsV4FamilyHttpSigner.AUTH_LOCATION, AwsV4FamilyHttpSigner.AuthLocation.QUERY_STRING)
                .putProperty(AwsV4FamilyHttpSigner.EXPIRATION_DURATION, Duration.ofMinutes(5)));
        assertTrue(signed.rawQuery().contains("MessageBody=b%2Bc"), signed.rawQuery());
        assertTrue(VERIFIER.verify(signed, SIGNED_AT, KEYS).accepted());
        assertRefused(
                SignatureRefusal.SIGNATURE_DOES_NOT_MATCH,
                new SignedRequest(
                        "GET",
                        signed.rawPath(),
                        signed.rawQuery().replace("b%2Bc", "b+c"),
                        signed.headers(),
                        signed.body()));
    }

    @Test
    void acceptsAFormRequestWithAwkwardValuesAndPaths() {
        String form = "Action=SendMessage&MessageBody=a%20b%2Bc%2F%C3%A9&Version=2012-11-05";
        for (String path : List.of("/", "/000000000001/jobs", "/000000000001//jobs", "/a/./b/../jobs", "/%41bc")) {
            SdkHttpRequest post = SdkHttpRequest.builder()
                    .method(SdkHttpMethod.POST)
                    .uri(URI.create("http://localhost:8080" + path))
                    .putHeader("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
                    .putHeader("X-Custom", "  several   spaces\tand a tab  ")
                    .appendHeader("X-Twice", "one")
                    .appendHeader("X-Twice", "two")
                    .build();
            SignedRequest signed = sign(post, form, UnaryOperator.identity());
            SignedCaller caller = VERIFIER.verify(signed, SIGNED_AT, KEYS);
            assertTrue(caller.accepted(), path + ": " + caller.message());
        }
    }

    @Test
    void namesWhatIsMissing() {
        SignedRequest signed = jsonRequest(SEND);
        Map<String, List<String>> headers = new LinkedHashMap<>(signed.headers());
        headers.remove("authorization");
        assertRefused(
                SignatureRefusal.MISSING_AUTHENTICATION_TOKEN,
                new SignedRequest("POST", "/", "", headers, signed.body()));
        assertRefused(
                SignatureRefusal.INCOMPLETE_SIGNATURE,
                withHeader(
                        signed,
                        "authorization",
                        "AWS4-HMAC-SHA256 Credential=" + KEY_ID
                                + "/20261129/us-east-1/sqs/aws4_request, SignedHeaders=host;x-amz-date"));
        assertRefused(
                SignatureRefusal.INCOMPLETE_SIGNATURE, withHeader(signed, "authorization", "AWS " + KEY_ID + ":abc"));
        String scoped = signed.firstHeader("authorization");
        assertRefused(
                SignatureRefusal.SIGNATURE_DOES_NOT_MATCH,
                withHeader(signed, "authorization", scoped.replace("/20261129/", "/20261128/")));
        assertRefused(
                SignatureRefusal.SIGNATURE_DOES_NOT_MATCH,
                withHeader(signed, "authorization", scoped.replace("/sqs/", "/sns/")));
        Map<String, List<String>> undated = new LinkedHashMap<>(signed.headers());
        undated.remove("x-amz-date");
        assertRefused(
                SignatureRefusal.INCOMPLETE_SIGNATURE, new SignedRequest("POST", "/", "", undated, signed.body()));
    }

    private static void assertRefused(SignatureRefusal expected, SignedRequest request) {
        SignedCaller caller = VERIFIER.verify(request, SIGNED_AT, KEYS);
        assertEquals(expected, caller.refusal(), caller.message());
    }

    private static SignedRequest jsonRequest(String body) {
        SdkHttpRequest post = SdkHttpRequest.builder()
                .method(SdkHttpMethod.POST)
                .uri(URI.create("http://localhost:8080/"))
                .putHeader("Content-Type", "application/x-amz-json-1.0")
                .putHeader("X-Amz-Target", "AmazonSQS.SendMessage")
                .build();
        return sign(post, body, UnaryOperator.identity());
    }

    private static SignedRequest withHeader(SignedRequest request, String name, String value) {
        Map<String, List<String>> headers = new LinkedHashMap<>(request.headers());
        headers.put(name, List.of(value));
        return new SignedRequest(request.method(), request.rawPath(), request.rawQuery(), headers, request.body());
    }

    /** {@code request} signed by the SDK at {@link #SIGNED_AT}, then read as Pigeon's door would receive it. */
    private static SignedRequest sign(
            SdkHttpRequest request,
            String body,
            UnaryOperator<software.amazon.awssdk.http.auth.spi.signer.SignRequest.Builder<AwsCredentialsIdentity>>
                    more) {
        var signed = AwsV4HttpSigner.create().sign(builder -> {
            builder.identity(AwsCredentialsIdentity.create(KEY_ID, SECRET))
                    .request(request)
                    .putProperty(AwsV4FamilyHttpSigner.SERVICE_SIGNING_NAME, "sqs")
                    .putProperty(AwsV4HttpSigner.REGION_NAME, "us-east-1")
                    .putProperty(AwsV4HttpSigner.SIGNING_CLOCK, Clock.fixed(SIGNED_AT, ZoneOffset.UTC));
            if (body != null) {
                builder.payload(ContentStreamProvider.fromUtf8String(body));
            }
            more.apply(builder);
        });
        SdkHttpRequest sent = signed.request();
        Map<String, List<String>> headers = new LinkedHashMap<>(sent.headers());
        if (sent.firstMatchingHeader("Host").isEmpty()) {
            // what the HTTP client sends from the URI
            headers.put("Host", List.of(sent.host() + ":" + sent.port()));
        }
        return new SignedRequest(
                sent.method().name(),
                sent.encodedPath(),
                sent.encodedQueryParameters().orElse(""),
                headers,
                body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8));
    }
}
