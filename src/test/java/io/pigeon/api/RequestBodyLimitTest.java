package io.pigeon.api;

import static org.hamcrest.Matchers.equalTo;

import io.pigeon.testing.Api;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Bodies above pigeon.max-request-body are refused unread, with 413 and the error document. */
@QuarkusTest
class RequestBodyLimitTest {

    private static byte[] objectOfSize(int size) {
        String prefix = "{\"k\": \"";
        return (prefix + "a".repeat(size - prefix.length() - 2) + "\"}").getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void oversizedBodiesAreRefusedWithTheErrorDocument() {
        String project = Api.newProject();
        Api.as(project).put("/v1/queues/big").then().statusCode(201);
        for (String path : new String[] {"/v1/queues/big/metadata", "/v2/queues/big"}) {
            Api.as(project).contentType(ContentType.JSON).body(objectOfSize(1048577)).put(path)
                    .then().statusCode(413)
                    .contentType("application/json")
                    .body("title", equalTo("Request entity too large"))
                    .body("description", equalTo("The request body may not exceed 1048576 bytes."));
        }
        // At the bound the body is read, and the document's own limit answers.
        Api.as(project).contentType(ContentType.JSON).body(objectOfSize(1048576)).put("/v1/queues/big/metadata")
                .then().statusCode(400)
                .body("description", equalTo("Queue metadata is too large. Max size: 65536"));
        Api.as(project).get("/v1/queues/big/metadata").then().statusCode(200).body("isEmpty()", equalTo(true));
    }
}
