package io.pigeon.testing;

import io.restassured.RestAssured;
import java.net.URI;
import java.time.Duration;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * The real AWS SDK for Java v2 pointed at the Pigeon a Quarkus test started, as an application would configure it:
 * an endpoint override and static credentials, nothing else changed (the SDK's MD5 checks of bodies and
 * attributes stay on, as by default). In auth mode {@code none} the access key id names the project, so each test
 * passes its own random project ({@link Api#newProject()}) and sees only its own queues.
 */
public final class Sqs {

    /** A secret the SDK signs with; auth mode none does not check signatures. */
    private static final String ANY_SECRET = "pigeon-test-secret-not-checked";

    private Sqs() {}

    /** Where the test's Pigeon listens, e.g. {@code http://localhost:8081}. */
    public static URI endpoint() {
        return URI.create(RestAssured.baseURI + ":" + RestAssured.port);
    }

    /** An SQS client acting as {@code project}; close it when done. */
    public static SqsClient clientFor(String project) {
        return clientFor(project, endpoint());
    }

    /** An SQS client acting as {@code project} against {@code endpoint} (another replica, another host name). */
    public static SqsClient clientFor(String project, URI endpoint) {
        return signedBy(project, ANY_SECRET, endpoint);
    }

    /** An SQS client signing with the key pair {@code accessKeyId}/{@code secret}, as with authentication on. */
    public static SqsClient signedBy(String accessKeyId, String secret) {
        return signedBy(accessKeyId, secret, endpoint());
    }

    private static SqsClient signedBy(String accessKeyId, String secret, URI endpoint) {
        return SqsClient.builder()
                .endpointOverride(endpoint)
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(accessKeyId, secret)))
                // Longer than the longest long poll (WaitTimeSeconds 20), so a wait is answered, not cut.
                .httpClient(UrlConnectionHttpClient.builder()
                        .socketTimeout(Duration.ofSeconds(40))
                        .build())
                .build();
    }
}
