package io.pigeon.api.ws;

import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.api.v2.ZaqarOptInsProfile;
import io.pigeon.testing.Api;
import io.pigeon.testing.Eventually;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What messages that are still arriving may make a replica hold, before Quarkus hands any of them to Pigeon: past the
 * replica's bound (2,000,000 as counted here) the socket whose unfinished message began first is closed with 1013 to
 * make room, and a socket that does not finish a message within 3 s is closed with 1008; each close comes with its
 * close frame.
 */
@QuarkusTest
@TestProfile(ZaqarOptInsProfile.class)
class ZaqarSocketArrivingBytesTest {

    private final String project = Api.newProject();

    @Inject
    ArrivingMessages arriving;

    @Test
    void unfinishedFramesPastTheReplicasBoundCloseTheOldestUnfinishedMessage() throws InterruptedException {
        List<RawSocket> held = new ArrayList<>();
        try {
            // Each declares a frame of 900,000 bytes and sends its 14 bytes of header and 300,000 of payload: counted
            // as the decoder's buffer holding them, at least the bytes and at most twice them.
            for (int s = 0; s < 3; s++) {
                held.add(RawSocket.open().header(1, true, 900_000).payload(new byte[300_000]));
                awaitCounted(s + 1);
            }
            // A fourth makes room by closing the socket whose message began first, not itself.
            try (RawSocket fourth = RawSocket.open()) {
                fourth.header(1, true, 900_000).payload(new byte[300_000]);
                RawSocket.Closed closed = held.get(0).readClose(Duration.ofSeconds(5));
                assertEquals(1013, closed.code(), closed.reason());
                assertTrue(closed.reason().contains("2000000"), closed.reason());
                assertEquals(-2, fourth.readClose(Duration.ofMillis(500)).code(), "the fourth socket is left open");
                // Meanwhile whole messages pass (closing the oldest holder if need be), and count nothing once
                // answered.
                try (RawSocket small = RawSocket.open()) {
                    small.text("{\"action\": \"queue_list\", \"headers\": {\"Client-ID\": \""
                            + "3381af92-2b9e-11e3-b191-71861300734c\", \"X-Project-ID\": \"" + project + "\"}}");
                    String answer = small.readText(Duration.ofSeconds(5));
                    assertNotNull(answer);
                    assertTrue(answer.contains("\"status\":200"), answer);
                }
                // The socket whose message is now the oldest asks for more than there is room for: it goes itself,
                // and the newer ones stay.
                RawSocket oldest = held.get(1);
                oldest.payload(new byte[600_000]);
                RawSocket.Closed itself = oldest.readClose(Duration.ofSeconds(5));
                assertEquals(1013, itself.code(), itself.reason());
                assertEquals(-2, fourth.readClose(Duration.ofMillis(500)).code(), "the fourth socket is left open");
            }
        } finally {
            held.forEach(RawSocket::close);
        }
        Eventually.await("the arriving bytes counted to be 0", Duration.ofSeconds(5), () -> arriving.counted() == 0);
    }

    /** Waits until {@code sockets} sockets holding 300,014 bytes each are counted (once to twice over). */
    private void awaitCounted(int sockets) {
        Eventually.await(
                "the arriving bytes counted to be between " + sockets + " × 300,014 and " + sockets + " × 600,028",
                Duration.ofSeconds(5),
                () -> arriving.counted() >= sockets * 300_014L && arriving.counted() <= sockets * 600_028L);
    }

    @Test
    void aMessageLeftUnfinishedIsClosedAfterTheArrivalTimeout() {
        try (RawSocket frame = RawSocket.open();
                RawSocket fragments = RawSocket.open()) {
            // Taken before the first byte is sent, so that the time measured can only be longer than the server's.
            long started = System.nanoTime();
            // An unfinished frame, and a message whose first fragment came whole but whose last never comes.
            frame.header(2, true, 1000).payload(new byte[999]);
            fragments.header(1, false, 10_000).payload(new byte[10_000]);
            RawSocket.Closed first = frame.readClose(Duration.ofSeconds(10));
            RawSocket.Closed second = fragments.readClose(Duration.ofSeconds(10));
            long waited = Duration.ofNanos(System.nanoTime() - started).toMillis();
            assertEquals(1008, first.code(), first.reason());
            assertEquals(1008, second.code(), second.reason());
            assertTrue(first.reason().contains("3000 ms"), first.reason());
            assertTrue(waited >= 2_500, "closed after " + waited + " ms");
        }
        Eventually.await("the arriving bytes counted to be 0", Duration.ofSeconds(5), () -> arriving.counted() == 0);
    }

    /** A message sent slowly, in fragments and in pieces, but finished in time, is taken and answered. */
    @Test
    void aSlowMessageFinishedInTimeIsAnswered() throws InterruptedException {
        String post = "{\"action\": \"message_post\", \"headers\": {\"Client-ID\": "
                + "\"3381af92-2b9e-11e3-b191-71861300734c\", \"X-Project-ID\": \"" + project + "\"}, "
                + "\"body\": {\"queue_name\": \"slow\", \"messages\": [{\"ttl\": 300, \"body\": \""
                + "z".repeat(200_000) + "\"}]}}";
        byte[] bytes = post.getBytes(StandardCharsets.UTF_8);
        int half = bytes.length / 2;
        try (RawSocket socket = RawSocket.open()) {
            socket.header(1, false, half);
            for (int piece = 0; piece < 4; piece++) {
                int from = piece * half / 4;
                int to = (piece + 1) * half / 4;
                socket.payload(Arrays.copyOfRange(bytes, from, to));
                Thread.sleep(300);
            }
            assertTrue(arriving.counted() >= 2L * half, "counted " + arriving.counted());
            socket.header(0, true, bytes.length - half);
            socket.payload(Arrays.copyOfRange(bytes, half, bytes.length));
            String answer = socket.readText(Duration.ofSeconds(10));
            assertNotNull(answer);
            assertTrue(answer.contains("\"status\":201"), answer.substring(0, Math.min(200, answer.length())));
        }
        Api.as(project).get("/v2/queues/slow/stats").then().body("messages.total", equalTo(1));
        Eventually.await("the arriving bytes counted to be 0", Duration.ofSeconds(5), () -> arriving.counted() == 0);
    }

    /**
     * A client that always leaves part of its next frame unsent keeps the buffer the decoder grew for a big frame: it
     * counts while kept, and is given up for a small one when the next bytes come.
     */
    @Test
    void theBufferKeptForABigFrameCountsUntilTheNextBytesCome() throws InterruptedException {
        try (RawSocket socket = RawSocket.open()) {
            byte[] big = " ".repeat(900_000).getBytes(StandardCharsets.UTF_8);
            big[0] = '{';
            // All of the big frame but its last byte, then that byte with the start of the next frame in one write:
            // the decoder reads them in one read, so what is left of that read stays in the buffer grown for the big
            // frame (were the big frame read to its end alone, its buffer would be released, and nothing to count).
            socket.header(1, true, big.length).payload(Arrays.copyOf(big, big.length - 1));
            socket.together(frames -> frames.payload(new byte[] {big[big.length - 1]})
                    .header(1, true, 2)
                    .payload(new byte[] {'{'}));
            assertNotNull(socket.readText(Duration.ofSeconds(10)));
            Eventually.await(
                    "the decoder's kept buffer to be counted",
                    Duration.ofSeconds(5),
                    () -> arriving.counted() >= 900_000);
            socket.payload(new byte[] {'}'}).header(1, true, 2).payload(new byte[] {'{'});
            assertNotNull(socket.readText(Duration.ofSeconds(10)));
            Eventually.await(
                    "the kept buffer to be given up", Duration.ofSeconds(5), () -> arriving.counted() < 70_000);
        }
        Eventually.await("the arriving bytes counted to be 0", Duration.ofSeconds(5), () -> arriving.counted() == 0);
    }

    /** Vert.x drops the continuations of a message whose first fragment was empty: they hold nothing, count nothing. */
    @Test
    void continuationsVertxDropsCountNothing() throws InterruptedException {
        try (RawSocket socket = RawSocket.open()) {
            socket.header(1, false, 0);
            for (int fragment = 0; fragment < 2; fragment++) {
                socket.header(0, false, 400_000).payload(new byte[400_000]);
            }
            assertEquals(0, settled(), "the dropped continuations counted");
        }
        Eventually.await("the arriving bytes counted to be 0", Duration.ofSeconds(5), () -> arriving.counted() == 0);
    }

    /** The count once it has stopped changing (the bytes sent have all been read). */
    private long settled() throws InterruptedException {
        long before;
        long now = arriving.counted();
        do {
            before = now;
            Thread.sleep(300);
            now = arriving.counted();
        } while (now != before);
        return now;
    }
}
