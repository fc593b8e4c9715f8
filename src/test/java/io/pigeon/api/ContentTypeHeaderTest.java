package io.pigeon.api;

import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

import io.pigeon.testing.Api;
import io.quarkus.test.junit.QuarkusTest;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** A Content-Type header that is not one media type is a 400 naming the header, on every edge; nothing is stored. */
@QuarkusTest
class ContentTypeHeaderTest {

    private final String project = Api.newProject();

    @Test
    void aHeaderThatIsNotOneMediaTypeIsRefusedNamingIt() {
        for (String header : new String[] {"application/json, text/plain", "application/<x>"}) {
            Api.as(project)
                    .header("Content-Type", header)
                    .body("{\"messages\": [{\"ttl\": 300, \"body\": 1}]}".getBytes(StandardCharsets.UTF_8))
                    .post("/v2/queues/typed/messages")
                    .then()
                    .statusCode(400)
                    .body("title", equalTo("Invalid Content-Type"))
                    .body("description", containsString("Content-Type header must be one media type"));
        }
        // Nothing was posted (the queue a post creates was not made either).
        Api.as(project).get("/v1/queues/typed").then().statusCode(404);
    }
}
