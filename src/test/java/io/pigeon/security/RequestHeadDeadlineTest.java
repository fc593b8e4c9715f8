package io.pigeon.security;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.junit.QuarkusTest;
import java.io.IOException;
import java.net.Socket;
import org.junit.jupiter.api.Test;

/**
 * A request head sent a byte a second is cut by the head's deadline (10 s, shipped) with 408 and the error document.
 * In the default profile, whose idle timeout is the shipped 120 s: Vert.x's idle timer sees only what the decoder
 * makes of the bytes, so it runs from the accept for a head that never ends, and a profile with a short idle timeout
 * would see it cut by that instead. Before the head's deadline it was held for the whole idle timeout (the issue saw
 * 120 s; this test, which trickles for 40 s, saw no cut).
 */
@QuarkusTest
class RequestHeadDeadlineTest {

    @Test
    void aHeadSentAByteASecondIsCutByTheHeadDeadline() throws IOException {
        try (Socket socket = SlowClientsTest.connect("127.0.0.1")) {
            long start = System.nanoTime();
            // A header line that never ends: "X-Slow: aaaa..."
            String answer = SlowClientsTest.trickle(
                    socket, "GET /v1/health HTTP/1.1\r\nHost: localhost\r\nX-Slow: ", (byte) 'a');
            double seconds = (System.nanoTime() - start) / 1e9;
            assertTrue(answer.startsWith("HTTP/1.1 408"), "answered: " + answer);
            assertTrue(answer.contains("\"title\":\"Request timeout\""), "answered: " + answer);
            assertTrue(seconds >= 9, "cut after " + seconds + " s, before the head deadline");
        }
    }
}
