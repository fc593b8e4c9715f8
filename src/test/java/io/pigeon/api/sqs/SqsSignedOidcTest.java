package io.pigeon.api.sqs;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.tenancy.OidcProfile;
import io.pigeon.tenancy.Tokens;
import io.pigeon.testing.Api;
import io.pigeon.testing.Sqs;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.path.json.JsonPath;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.QueueDoesNotExistException;

/**
 * With authentication on, the real AWS SDK signs with a key pair a project's token holder made through
 * {@code /v2/access-keys}, and Pigeon verifies every request's Signature Version 4 against it: the key acts for its
 * project only, a wrong secret is {@code SignatureDoesNotMatch}, a revoked key {@code InvalidClientTokenId}, and another
 * project's key finds none of the first project's queues under any queue URL.
 */
@QuarkusTest
@TestProfile(OidcProfile.class)
class SqsSignedOidcTest {

    private static final String KEYS = "/v2/access-keys";

    private record KeyPair(String id, String secret) {}

    private static KeyPair newKey(String project) {
        JsonPath created = given().auth()
                .oauth2(Tokens.valid(project))
                .header("Client-ID", Api.CLIENT_ID)
                .post(KEYS)
                .then()
                .statusCode(201)
                .extract()
                .jsonPath();
        return new KeyPair(created.getString("access_key_id"), created.getString("secret_access_key"));
    }

    @Test
    void aSignedClientActsForItsKeysProjectOnly() {
        String project = Api.newProject();
        KeyPair key = newKey(project);
        KeyPair other = newKey(Api.newProject());
        try (SqsClient sqs = Sqs.signedBy(key.id(), key.secret());
                SqsClient stranger = Sqs.signedBy(other.id(), other.secret())) {
            String url = sqs.createQueue(create -> create.queueName("signed")).queueUrl();
            sqs.sendMessage(send -> send.queueUrl(url).messageBody("signed body"));
            Message received = sqs.receiveMessage(
                            receive -> receive.queueUrl(url).waitTimeSeconds(1))
                    .messages()
                    .get(0);
            assertEquals("signed body", received.body());

            // Seen through Zaqar with the project's token: the same queue.
            given().auth()
                    .oauth2(Tokens.valid(project))
                    .header("Client-ID", Api.CLIENT_ID)
                    .get("/v2/queues/signed/stats")
                    .then()
                    .statusCode(200);

            assertThrows(QueueDoesNotExistException.class, () -> stranger.getQueueUrl(get -> get.queueName("signed")));
            assertThrows(
                    QueueDoesNotExistException.class,
                    () -> stranger.sendMessage(send -> send.queueUrl(url).messageBody("not mine")));
            assertTrue(stranger.listQueues().queueUrls().isEmpty());
            assertEquals(
                    "0",
                    sqs.getQueueAttributes(
                                    get -> get.queueUrl(url).attributeNamesWithStrings("ApproximateNumberOfMessages"))
                            .attributesAsStrings()
                            .get("ApproximateNumberOfMessages"));
        }
    }

    @Test
    void aWrongSecretAndARevokedKeyAreRefusedAsAwsRefusesThem() {
        String project = Api.newProject();
        KeyPair key = newKey(project);
        try (SqsClient forged = Sqs.signedBy(key.id(), key.secret().substring(1) + "A")) {
            AwsServiceException refused =
                    assertThrows(AwsServiceException.class, () -> forged.createQueue(create -> create.queueName("x")));
            assertEquals("SignatureDoesNotMatch", refused.awsErrorDetails().errorCode());
            assertEquals(403, refused.statusCode());
        }
        given().auth()
                .oauth2(Tokens.valid(project))
                .header("Client-ID", Api.CLIENT_ID)
                .delete(KEYS + "/" + key.id())
                .then()
                .statusCode(204);
        try (SqsClient revoked = Sqs.signedBy(key.id(), key.secret())) {
            AwsServiceException refused = assertThrows(AwsServiceException.class, () -> revoked.listQueues());
            assertEquals("InvalidClientTokenId", refused.awsErrorDetails().errorCode());
            assertEquals(403, refused.statusCode());
        }
        // Nothing the refused requests asked for was made.
        KeyPair fresh = newKey(project);
        try (SqsClient sqs = Sqs.signedBy(fresh.id(), fresh.secret())) {
            assertThrows(QueueDoesNotExistException.class, () -> sqs.getQueueUrl(get -> get.queueName("x")));
        }
    }
}
