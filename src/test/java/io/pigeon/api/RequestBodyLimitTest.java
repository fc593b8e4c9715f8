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

    /** A body streamed without a length (chunked) is bounded by the same number, and nothing of it is stored. */
    @Test
    void chunkedBodiesAreBoundedToo() {
        String project = Api.newProject();
        java.util.Map<String, String> headers = java.util.Map.of("X-Project-Id", project, "Client-ID", Api.CLIENT_ID,
                "Content-Type", "application/json");
        for (String path : new String[] {"/v2/queues/streamed/messages", "/v3/queue/k/POST/"
                + java.util.Base64.getUrlEncoder().withoutPadding().encodeToString("http://127.0.0.1:9/x".getBytes())}) {
            io.pigeon.testing.RawHttp.Answer answer = io.pigeon.testing.RawHttp.sendChunked(io.restassured.RestAssured.port,
                    "POST", path, headers, ("{\"messages\": [{\"ttl\": 60, \"body\": \"" + "a".repeat(3 * 1024 * 1024)
                            + "\"}]}").getBytes(StandardCharsets.UTF_8));
            // Refused by the HTTP layer itself once past the bound (its answer carries no error document).
            org.junit.jupiter.api.Assertions.assertEquals(413, answer.status(), path + ": " + answer);
        }
        Api.as(project).get("/v2/queues").then().statusCode(200).body("queues.size()", equalTo(0));
        // Under the bound a streamed body is read as any other.
        io.pigeon.testing.RawHttp.Answer small = io.pigeon.testing.RawHttp.sendChunked(io.restassured.RestAssured.port,
                "POST", "/v2/queues/streamed/messages", headers,
                ("{\"messages\": [{\"ttl\": 60, \"body\": \"" + "a".repeat(200_000) + "\"}]}").getBytes(StandardCharsets.UTF_8));
        org.junit.jupiter.api.Assertions.assertEquals(201, small.status(), small.toString());
        Api.as(project).get("/v2/queues/streamed/stats").then().statusCode(200).body("messages.total", equalTo(1));
    }
}
