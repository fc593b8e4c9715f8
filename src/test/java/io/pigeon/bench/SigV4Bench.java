package io.pigeon.bench;

import io.pigeon.accesskeys.KeySecrets;
import io.pigeon.accesskeys.SigV4Verifier;
import io.pigeon.accesskeys.SignedCaller;
import io.pigeon.accesskeys.SignedRequest;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4FamilyHttpSigner;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;

/**
 * What checking a Signature Version 4 costs per request (issue 42, goal under 20 µs), without a server or a
 * database: a SendMessage request as the AWS SDK v2 signs it (JSON protocol, a 256-byte body, the SDK's usual
 * headers), verified again and again on one thread for {@code bench.seconds} after as long a warm-up; the secret's
 * lookup is a map read, so the figure is the verifier's own (canonical request, two SHA-256, five HMAC). Prints the
 * mean time per verification. Not a test and nothing asserted: run it with {@code ./mvnw -Pbench
 * -Dbench.scenarios=sigv4}, or its main method from the test classpath.
 */
public final class SigV4Bench {

    private static final String KEY_ID = "PGNKBENCH00000000001";
    private static final String SECRET = "YmVuY2ggc2VjcmV0IGtleSBvZiBmb3J0eSBjaGFy";

    private SigV4Bench() {}

    public static void main(String[] args) {
        run(Integer.getInteger("bench.seconds", 10));
    }

    static void run(int seconds) {
        Instant signedAt = Instant.now();
        SignedRequest request = signedSendMessage(signedAt);
        SigV4Verifier verifier = new SigV4Verifier("sqs", Duration.ofMinutes(15));
        Map<String, KeySecrets.KeySecret> keys = Map.of(KEY_ID, new KeySecrets.KeySecret("bench", SECRET));
        KeySecrets secrets = id -> Optional.ofNullable(keys.get(id));
        loop(verifier, request, signedAt, secrets, Duration.ofSeconds(seconds)); // warm-up
        long[] result = loop(verifier, request, signedAt, secrets, Duration.ofSeconds(seconds));
        System.out.printf(
                "sigv4: %d verifications in %.1f s, %.2f us each (one thread)%n",
                result[0], result[1] / 1e9, result[1] / 1e3 / result[0]);
    }

    /** Verifications done and nanoseconds spent, for about {@code length}. */
    private static long[] loop(
            SigV4Verifier verifier, SignedRequest request, Instant now, KeySecrets secrets, Duration length) {
        long start = System.nanoTime();
        long deadline = start + length.toNanos();
        long count = 0;
        long now1 = start;
        while (now1 < deadline) {
            for (int i = 0; i < 1000; i++) {
                SignedCaller caller = verifier.verify(request, now, secrets);
                if (!caller.accepted()) {
                    throw new IllegalStateException(caller.message());
                }
            }
            count += 1000;
            now1 = System.nanoTime();
        }
        return new long[] {count, now1 - start};
    }

    private static SignedRequest signedSendMessage(Instant at) {
        String body = "{\"QueueUrl\":\"http://localhost:8080/000000000001/bench\",\"MessageBody\":\"" + "x".repeat(256)
                + "\"}";
        SdkHttpRequest post = SdkHttpRequest.builder()
                .method(SdkHttpMethod.POST)
                .uri(URI.create("http://localhost:8080/"))
                .putHeader("Content-Type", "application/x-amz-json-1.0")
                .putHeader("X-Amz-Target", "AmazonSQS.SendMessage")
                .putHeader("User-Agent", "aws-sdk-java/2.57.8 ua/2.1 os/Linux lang/java md/internal exec-env/bench")
                .putHeader("amz-sdk-invocation-id", "3f2a6d1e-0b7c-4c1e-9d55-1f0e7b2a9c41")
                .putHeader("amz-sdk-request", "attempt=1; max=4")
                .putHeader("Content-Length", String.valueOf(body.length()))
                .build();
        var signed = AwsV4HttpSigner.create()
                .sign(builder -> builder.identity(AwsCredentialsIdentity.create(KEY_ID, SECRET))
                        .request(post)
                        .payload(ContentStreamProvider.fromUtf8String(body))
                        .putProperty(AwsV4FamilyHttpSigner.SERVICE_SIGNING_NAME, "sqs")
                        .putProperty(AwsV4HttpSigner.REGION_NAME, "us-east-1")
                        .putProperty(AwsV4HttpSigner.SIGNING_CLOCK, Clock.fixed(at, ZoneOffset.UTC)));
        Map<String, List<String>> headers = new LinkedHashMap<>(signed.request().headers());
        headers.putIfAbsent("Host", List.of("localhost:8080"));
        return new SignedRequest("POST", "/", "", headers, body.getBytes(StandardCharsets.UTF_8));
    }
}
