package io.pigeon.api.sqs;

import static io.restassured.RestAssured.given;

import io.restassured.RestAssured;
import io.restassured.parsing.Parser;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Raw SQS requests as an SDK sends them, in either protocol, for one project (with authentication off, the access key
 * id of the credential names the project): JSON 1.0 posts with {@code X-Amz-Target}, query-protocol form posts.
 */
final class SqsClient {

    static final String JSON_TYPE = "application/x-amz-json-1.0";

    static {
        RestAssured.registerParser(JSON_TYPE, Parser.JSON);
    }

    private final String project;

    SqsClient(String project) {
        this.project = project;
    }

    String project() {
        return project;
    }

    /** A request signed (not checked with authentication off) with the project as access key id. */
    RequestSpecification signed() {
        return given().header(
                        "Authorization",
                        "AWS4-HMAC-SHA256 Credential=" + project + "/20261129/us-east-1/sqs/aws4_request, "
                                + "SignedHeaders=host;x-amz-date, Signature=0000");
    }

    /** An AWS JSON 1.0 call of {@code action} with {@code body}. */
    Response json(String action, String body) {
        return signed().contentType(JSON_TYPE)
                .header("X-Amz-Target", "AmazonSQS." + action)
                .body(body.getBytes(StandardCharsets.UTF_8))
                .post("/");
    }

    /** A query-protocol call of {@code action} posted as a form to {@code path}, with name/value pairs. */
    Response queryAt(String path, String action, String... pairs) {
        Map<String, String> form = new LinkedHashMap<>();
        form.put("Action", action);
        form.put("Version", "2012-11-05");
        for (int i = 0; i < pairs.length; i += 2) {
            form.put(pairs[i], pairs[i + 1]);
        }
        return signed().contentType("application/x-www-form-urlencoded; charset=utf-8")
                .formParams(form)
                .post(path);
    }

    Response query(String action, String... pairs) {
        return queryAt("/", action, pairs);
    }

    /** Creates a queue through JSON and answers its URL. */
    String create(String name) {
        return json("CreateQueue", "{\"QueueName\": \"" + name + "\"}")
                .then()
                .statusCode(200)
                .extract()
                .path("QueueUrl");
    }
}
