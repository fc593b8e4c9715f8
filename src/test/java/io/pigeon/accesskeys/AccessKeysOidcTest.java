package io.pigeon.accesskeys;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.matchesPattern;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.notNullValue;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.tenancy.OidcProfile;
import io.pigeon.tenancy.Tokens;
import io.pigeon.testing.Api;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import io.restassured.specification.RequestSpecification;
import jakarta.inject.Inject;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4FamilyHttpSigner;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;

/**
 * A project's access keys in OIDC mode, where signatures are checked: made, listed and revoked through
 * {@code /v2/access-keys} with a token for the project; a request the AWS SDK's signer signs with a new key is
 * accepted as that project's, and refused once the key is revoked, with a wrong secret, or as another project's key
 * through the API; the secret appears in the creation's answer only.
 */
@QuarkusTest
@TestProfile(OidcProfile.class)
class AccessKeysOidcTest {

    private static final String PATH = "/v2/access-keys";

    @Inject
    AccessKeyService service;

    private static RequestSpecification as(String project) {
        return given().auth().oauth2(Tokens.valid(project)).header("Client-ID", Api.CLIENT_ID);
    }

    @Test
    void aNewKeySignsForItsProjectUntilRevoked() {
        String project = Api.newProject();
        JsonPath created = as(project)
                .post(PATH)
                .then()
                .statusCode(201)
                .header("Cache-Control", "no-store")
                .body("access_key_id", matchesPattern("PGNK[A-Z2-7]{16}"))
                .body("secret_access_key", matchesPattern("[A-Za-z0-9+/]{40}"))
                .extract()
                .jsonPath();
        String id = created.getString("access_key_id");
        String secret = created.getString("secret_access_key");

        SignedCaller caller = service.verify(signed(id, secret, "{}")).await().indefinitely();
        assertTrue(caller.accepted(), caller.message());
        assertEquals(project, caller.project());
        assertEquals(id, caller.accessKeyId());

        assertEquals(
                SignatureRefusal.SIGNATURE_DOES_NOT_MATCH,
                service.verify(signed(id, secret.substring(1) + "A", "{}"))
                        .await()
                        .indefinitely()
                        .refusal());

        String listed = as(project)
                .get(PATH)
                .then()
                .statusCode(200)
                .body("access_keys", hasSize(1))
                .body("access_keys[0].access_key_id", equalTo(id))
                .body("access_keys[0].href", equalTo(PATH + "/" + id))
                .body("access_keys[0].revoked", nullValue())
                .extract()
                .asString();
        assertTrue(!listed.contains(secret) && !listed.contains("secret"), listed);

        as(project).delete(PATH + "/" + id).then().statusCode(204);
        as(project).delete(PATH + "/" + id).then().statusCode(204);
        as(project).get(PATH).then().statusCode(200).body("access_keys[0].revoked", notNullValue());
        assertEquals(
                SignatureRefusal.INVALID_CLIENT_TOKEN_ID,
                service.verify(signed(id, secret, "{}")).await().indefinitely().refusal());
    }

    @Test
    void anotherProjectsKeyIsNeverVisible() {
        String mine = Api.newProject();
        String theirs = Api.newProject();
        String theirKey = as(theirs).post(PATH).then().statusCode(201).extract().path("access_key_id");

        as(mine).get(PATH).then().statusCode(200).body("access_keys", hasSize(0));
        as(mine).delete(PATH + "/" + theirKey)
                .then()
                .statusCode(404)
                .contentType(ContentType.JSON)
                .body("title", equalTo("Not found"))
                .body("description", not(containsString(theirs)));
        as(mine).delete(PATH + "/PGNKAAAAAAAAAAAAAAAA").then().statusCode(404);
        as(mine).delete(PATH + "/..%2F" + theirKey).then().statusCode(404);
        as(theirs).get(PATH).then().statusCode(200).body("access_keys[0].revoked", nullValue());

        // another project's token cannot act for it, nor can no token
        given().auth()
                .oauth2(Tokens.valid(mine))
                .header("Client-ID", Api.CLIENT_ID)
                .header("X-Project-Id", theirs)
                .post(PATH)
                .then()
                .statusCode(403);
        given().header("Client-ID", Api.CLIENT_ID).post(PATH).then().statusCode(401);
    }

    @Test
    void aProjectHoldsABoundedNumberOfKeys() {
        String project = Api.newProject();
        for (int i = 0; i < 10; i++) {
            as(project).post(PATH).then().statusCode(201);
        }
        as(project)
                .post(PATH)
                .then()
                .statusCode(403)
                .body("description", containsString("pigeon.access-keys.max-per-project"));
        String first = as(project).get(PATH).then().extract().path("access_keys[0].access_key_id");
        as(project).delete(PATH + "/" + first).then().statusCode(204);
        as(project).post(PATH).then().statusCode(201);
        as(project).get(PATH).then().body("access_keys", hasSize(11));
    }

    @Test
    void anUnknownOrMalformedKeyIsAnInvalidClientToken() {
        assertEquals(
                SignatureRefusal.INVALID_CLIENT_TOKEN_ID,
                service.verify(signed("PGNKAAAAAAAAAAAAAAAA", "x".repeat(40), "{}"))
                        .await()
                        .indefinitely()
                        .refusal());
        assertEquals(
                SignatureRefusal.INVALID_CLIENT_TOKEN_ID,
                service.verify(signed("AKIDEXAMPLE", "x".repeat(40), "{}"))
                        .await()
                        .indefinitely()
                        .refusal());
    }

    /** A JSON SQS request signed now by the AWS SDK's signer with {@code id} and {@code secret}. */
    static SignedRequest signed(String id, String secret, String body) {
        SdkHttpRequest post = SdkHttpRequest.builder()
                .method(SdkHttpMethod.POST)
                .uri(URI.create("http://localhost:8081/"))
                .putHeader("Content-Type", "application/x-amz-json-1.0")
                .putHeader("X-Amz-Target", "AmazonSQS.ListQueues")
                .build();
        var signed = AwsV4HttpSigner.create()
                .sign(builder -> builder.identity(AwsCredentialsIdentity.create(id, secret))
                        .request(post)
                        .payload(ContentStreamProvider.fromUtf8String(body))
                        .putProperty(AwsV4FamilyHttpSigner.SERVICE_SIGNING_NAME, "sqs")
                        .putProperty(AwsV4HttpSigner.REGION_NAME, "eu-west-1")
                        .putProperty(AwsV4HttpSigner.SIGNING_CLOCK, Clock.fixed(Instant.now(), ZoneOffset.UTC)));
        Map<String, List<String>> headers = new LinkedHashMap<>(signed.request().headers());
        headers.putIfAbsent("Host", List.of("localhost:8081"));
        return new SignedRequest("POST", "/", "", headers, body.getBytes(StandardCharsets.UTF_8));
    }
}
