package io.pigeon.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.restassured.http.ContentType;
import io.restassured.response.Response;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/** Message helpers for tests: v1 posts, v2 posts, and the parts of a message href. */
public final class Messages {

    private Messages() {}

    /** Posts {@code count} messages {"n": i} with the given TTL; their hrefs in order. */
    public static List<String> post(String project, String queue, int count, int ttl) {
        String document = IntStream.range(0, count)
                .mapToObj(i -> "{\"ttl\": " + ttl + ", \"body\": {\"n\": " + i + "}}")
                .collect(Collectors.joining(",", "[", "]"));
        Response response =
                Api.as(project).contentType(ContentType.JSON).body(document).post("/v1/queues/" + queue + "/messages");
        assertEquals(201, response.statusCode(), response.asString());
        return response.jsonPath().getList("resources", String.class);
    }

    /** Posts {@code count} messages (bodies 0, 1, ...) through v2, with the given TTL and delay (0: none). */
    public static void postV2(String project, String queue, int count, int ttl, int delay) {
        String document = IntStream.range(0, count)
                .mapToObj(i -> "{\"ttl\": " + ttl + ", \"delay\": " + delay + ", \"body\": " + i + "}")
                .collect(Collectors.joining(", ", "{\"messages\": [", "]}"));
        Response response =
                Api.as(project).contentType(ContentType.JSON).body(document).post("/v2/queues/" + queue + "/messages");
        assertEquals(201, response.statusCode(), response.asString());
    }

    /** The id at the end of a message href (before any query). */
    public static String id(String href) {
        String path = href.contains("?") ? href.substring(0, href.indexOf('?')) : href;
        return path.substring(path.lastIndexOf('/') + 1);
    }

    /** The claim id in a claimed message's href. */
    public static String claimId(String href) {
        return href.substring(href.indexOf("claim_id=") + "claim_id=".length());
    }

    /** The row id behind a wire id. */
    public static long rowId(String href) {
        return Long.parseLong(id(href), 16);
    }
}
