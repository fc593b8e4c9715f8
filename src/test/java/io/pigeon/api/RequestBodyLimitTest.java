package io.pigeon.api;

import static org.hamcrest.Matchers.equalTo;

import io.pigeon.testing.Api;
import io.pigeon.testing.RawHttp;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.http.ContentType;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Assertions;
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
            Api.as(project)
                    .contentType(ContentType.JSON)
                    .body(objectOfSize(1048577))
                    .put(path)
                    .then()
                    .statusCode(413)
                    .contentType("application/json")
                    .body("title", equalTo("Request entity too large"))
                    .body("description", equalTo("The request body may not exceed 1048576 bytes."));
        }
        // At the bound the body is read, and the document's own limit answers.
        Api.as(project)
                .contentType(ContentType.JSON)
                .body(objectOfSize(1048576))
                .put("/v1/queues/big/metadata")
                .then()
                .statusCode(400)
                .body("description", equalTo("Queue metadata is too large. Max size: 65536"));
        Api.as(project).get("/v1/queues/big/metadata").then().statusCode(200).body("isEmpty()", equalTo(true));
    }

    /**
     * A streamed body past the bound is the client's fault: it is answered 413 and logs no ERROR and no stack trace
     * (before, each such request logged "Response has already been written" at ERROR: the REST layer answered a
     * request the HTTP layer had already refused, and any client could flood the log with them).
     */
    @Test
    void aStreamedBodyPastTheBoundLogsNoErrorNorStackTrace() {
        String project = Api.newProject();
        Map<String, String> headers =
                Map.of("X-Project-Id", project, "Client-ID", Api.CLIENT_ID, "Content-Type", "application/json");
        List<LogRecord> logged = new CopyOnWriteArrayList<>();
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord record) {
                logged.add(record);
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
        Logger root = Logger.getLogger("");
        root.addHandler(capture);
        try {
            for (int i = 0; i < 3; i++) {
                RawHttp.Answer answer = RawHttp.sendChunked(
                        RestAssured.port,
                        "POST",
                        "/v2/queues/flooded/messages",
                        headers,
                        ("{\"messages\": [{\"ttl\": 60, \"body\": \"" + "a".repeat(2 * 1024 * 1024) + "\"}]}")
                                .getBytes(StandardCharsets.UTF_8));
                Assertions.assertEquals(413, answer.status(), answer.toString());
            }
            // A request after them is served: whatever the refused ones left behind is logged by now.
            Api.as(project).get("/v2/queues").then().statusCode(200);
        } finally {
            root.removeHandler(capture);
        }
        List<String> errors = logged.stream()
                .filter(record -> record.getLevel().intValue() >= Level.SEVERE.intValue() || record.getThrown() != null)
                .map(record -> record.getLevel() + " " + record.getLoggerName() + ": " + record.getMessage()
                        + (record.getThrown() == null ? "" : " " + record.getThrown()))
                .toList();
        Assertions.assertEquals(List.of(), errors, "what the refused bodies logged");
    }

    /**
     * A client that closes its connection in the middle of a body, streamed (chunked) or declared (Content-Length), is
     * the client's doing: nothing is logged at WARN or ERROR (before, each logged "HTTP Request to … failed" at ERROR,
     * one line per connection, and anyone could fill the log with them).
     */
    @Test
    void aClientClosingMidBodyLogsNoWarningNorError() throws Exception {
        String project = Api.newProject();
        String head =
                "POST /v2/queues/abandoned/messages HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                        + "X-Project-Id: " + project + "\r\nClient-ID: " + Api.CLIENT_ID + "\r\n";
        List<LogRecord> logged = new CopyOnWriteArrayList<>();
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord record) {
                logged.add(record);
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
        Logger root = Logger.getLogger("");
        root.addHandler(capture);
        try {
            for (int i = 0; i < 3; i++) {
                for (String start : new String[] {
                    head + "Transfer-Encoding: chunked\r\n\r\n5\r\n{\"mes\r\n",
                    head + "Content-Length: 100\r\n\r\n{\"mes"
                }) {
                    try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), RestAssured.port)) {
                        socket.getOutputStream().write(start.getBytes(StandardCharsets.US_ASCII));
                        socket.getOutputStream().flush();
                        Thread.sleep(200); // the head is routed and the body is being read when the client goes
                    }
                }
            }
            // Requests after them are served: whatever the abandoned ones left behind is logged by now.
            Thread.sleep(500);
            Api.as(project).get("/v2/queues").then().statusCode(200);
        } finally {
            root.removeHandler(capture);
        }
        List<String> complaints = logged.stream()
                .filter(record -> record.getLevel().intValue() >= Level.WARNING.intValue())
                .map(record -> record.getLevel() + " " + record.getLoggerName() + ": " + record.getMessage()
                        + (record.getThrown() == null ? "" : " " + record.getThrown()))
                .toList();
        Assertions.assertEquals(List.of(), complaints, "what the abandoned bodies logged");
    }

    /** A body streamed without a length (chunked) is bounded by the same number, and nothing of it is stored. */
    @Test
    void chunkedBodiesAreBoundedToo() {
        String project = Api.newProject();
        Map<String, String> headers =
                Map.of("X-Project-Id", project, "Client-ID", Api.CLIENT_ID, "Content-Type", "application/json");
        for (String path : new String[] {
            "/v2/queues/streamed/messages",
            "/v3/queue/k/POST/"
                    + Base64.getUrlEncoder().withoutPadding().encodeToString("http://127.0.0.1:9/x".getBytes())
        }) {
            RawHttp.Answer answer = RawHttp.sendChunked(
                    RestAssured.port,
                    "POST",
                    path,
                    headers,
                    ("{\"messages\": [{\"ttl\": 60, \"body\": \"" + "a".repeat(3 * 1024 * 1024) + "\"}]}")
                            .getBytes(StandardCharsets.UTF_8));
            // Refused once past the bound, with the error document, before the REST layer sees it.
            Assertions.assertEquals(413, answer.status(), path + ": " + answer);
            Assertions.assertTrue(answer.body().contains("Request entity too large"), path + ": " + answer);
        }
        Api.as(project).get("/v2/queues").then().statusCode(200).body("queues.size()", equalTo(0));
        // Under the bound a streamed body is read as any other.
        RawHttp.Answer small = RawHttp.sendChunked(
                RestAssured.port,
                "POST",
                "/v2/queues/streamed/messages",
                headers,
                ("{\"messages\": [{\"ttl\": 60, \"body\": \"" + "a".repeat(200_000) + "\"}]}")
                        .getBytes(StandardCharsets.UTF_8));
        Assertions.assertEquals(201, small.status(), small.toString());
        Api.as(project).get("/v2/queues/streamed/stats").then().statusCode(200).body("messages.total", equalTo(1));
    }
}
