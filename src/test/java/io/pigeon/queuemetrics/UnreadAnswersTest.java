package io.pigeon.queuemetrics;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.api.ws.SmallReplicaLimitsProfile;
import io.pigeon.testing.Api;
import io.pigeon.testing.Eventually;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.RestAssured;
import io.restassured.http.ContentType;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A client that asks for /q/metrics/queues and does not read the answer holds its bytes within
 * pigeon.queue-metrics.max-unwritten-bytes (1 MiB here, below one answer of this test): while it holds them, another
 * scrape is refused with 503 and the error document naming the bound, never a 500; once its connection is gone, scrapes
 * are answered whole again. Before, every answer waiting for its client sat in direct memory without bound, and the
 * scrapes after about 41 such clients failed with an OutOfMemoryError (500).
 */
@QuarkusTest
@TestProfile(SmallReplicaLimitsProfile.class)
class UnreadAnswersTest {

    /** A project id as long as one may be, so that each queue's series take some 4 KB. */
    private final String project = "test-" + UUID.randomUUID() + "-" + "p".repeat(200);

    private static final int QUEUES = 1600;

    private static String queue(int i) {
        return String.format("%064d", i);
    }

    private void createQueues() throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(4);
        try {
            List<Future<Integer>> created = new ArrayList<>();
            for (int i = 0; i < QUEUES; i++) {
                String name = queue(i);
                created.add(threads.submit(
                        () -> Api.as(project).put("/v2/queues/" + name).statusCode()));
            }
            for (Future<Integer> status : created) {
                assertEquals(201, status.get(60, TimeUnit.SECONDS), "queue created");
            }
        } finally {
            threads.shutdownNow();
        }
    }

    private String scrapePath() {
        return "/q/metrics/queues?project=" + project;
    }

    /** Asks for the answer on a socket with a small receive buffer, reads its first 40 bytes and stops reading. */
    private Socket unreadScrape() throws Exception {
        Socket socket = new Socket();
        socket.setReceiveBufferSize(4096);
        socket.connect(new InetSocketAddress("localhost", RestAssured.port));
        OutputStream out = socket.getOutputStream();
        out.write(("GET " + scrapePath() + " HTTP/1.1\r\nHost: localhost\r\nX-Project-Id: " + project + "\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
        out.flush();
        InputStream in = socket.getInputStream();
        String head = new String(in.readNBytes(40), StandardCharsets.US_ASCII);
        assertTrue(head.startsWith("HTTP/1.1 200"), head);
        return socket;
    }

    @Test
    void anUnreadAnswerHoldsItsBytesWithinTheBoundUntilItsConnectionIsGone() throws Exception {
        createQueues();
        String whole = Api.as(project)
                .get(scrapePath())
                .then()
                .statusCode(200)
                .extract()
                .asString();
        assertTrue(whole.length() > 2 * 1048576, "an answer is larger than the bound: " + whole.length());
        assertTrue(whole.contains(queue(QUEUES - 1)), "the answer is whole");

        Socket unread = unreadScrape();
        try {
            Api.as(project)
                    .get(scrapePath())
                    .then()
                    .statusCode(503)
                    .contentType(ContentType.JSON)
                    .body("title", equalTo("Service temporarily unavailable"))
                    .body("description", containsString("pigeon.queue-metrics.max-unwritten-bytes"));
        } finally {
            unread.close();
        }
        // The connection is gone: its answer's bytes are free, and a scrape is answered whole again.
        Eventually.await(
                "a scrape answered again",
                Duration.ofSeconds(10),
                () -> Api.as(project).get(scrapePath()).statusCode() == 200);
        String again = Api.as(project)
                .get(scrapePath())
                .then()
                .statusCode(200)
                .extract()
                .asString();
        assertTrue(again.contains(queue(QUEUES - 1)), "the answer is whole");
        given().get("/q/health/live").then().statusCode(200);
    }
}
