package io.pigeon.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.restassured.http.ContentType;
import io.restassured.response.Response;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/** v1 message helpers for tests. */
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
