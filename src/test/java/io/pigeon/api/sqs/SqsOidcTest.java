package io.pigeon.api.sqs;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

import io.pigeon.tenancy.OidcProfile;
import io.pigeon.testing.Api;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.parsing.Parser;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * With authentication on, an SQS request is never acted on by its access key id alone: a credential without a date
 * and a real signature is {@code IncompleteSignature} and none is {@code MissingAuthenticationToken}, in both
 * protocols, and nothing is created ({@link SqsSignedOidcTest} signs with issued keys). Zaqar's root answers stay.
 */
@QuarkusTest
@TestProfile(OidcProfile.class)
class SqsOidcTest {

    private final SqsClient sqs = new SqsClient(Api.newProject());

    @Test
    void aCredentialAloneActsForNoProject() {
        sqs.json("CreateQueue", "{\"QueueName\": \"held\"}")
                .then()
                .statusCode(400)
                .header("x-amzn-query-error", "IncompleteSignature;Sender")
                .parser(SqsClient.JSON_TYPE, Parser.JSON)
                .body("__type", equalTo("com.amazonaws.sqs#IncompleteSignature"));
        sqs.query("CreateQueue", "QueueName", "held")
                .then()
                .statusCode(400)
                .body(containsString("<Code>IncompleteSignature</Code>"));
        given().contentType(SqsClient.JSON_TYPE)
                .header("X-Amz-Target", "AmazonSQS.ListQueues")
                .body("{}".getBytes(StandardCharsets.UTF_8))
                .post("/")
                .then()
                .statusCode(403)
                .header("x-amzn-query-error", "MissingAuthenticationToken;Sender");
        given().get("/").then().statusCode(300);
    }
}
