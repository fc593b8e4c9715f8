package io.pigeon.api.ws;

import static io.pigeon.api.ws.SocketClient.body;
import static io.pigeon.api.ws.SocketClient.frame;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pigeon.testing.Api;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Frames built to expand, sent as an outside attack sent them: a megabyte of empty maps in MessagePack ({@code 0x80}
 * each, a million nodes of Jackson's tree) or of {@code {},} in JSON, from many anonymous sockets at once. When such
 * frames were read, walked and echoed on the event loop, {@code GET /v1/health} took 7 to 8 s at the median with a few
 * sockets. Each frame must get the 400 answer of an undecodable frame, small, on a socket that stays open, while the
 * service keeps answering; and a legitimate frame of the largest message post still passes the bound of values.
 */
@QuarkusTest
class ZaqarSocketExpandingFramesTest {

    private static final int SOCKETS = 24;

    /** A frame a little under the bound of a websocket message (pigeon.max-request-body, 1 MiB). */
    private static final int FRAME_BYTES = 1_048_000;

    private static final int PROBES = 16;

    private static final Duration PROBE_EVERY = Duration.ofMillis(200);

    /** A probe that takes longer is counted as this long: the attack made the median 7 to 8 s. */
    private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(4);

    /** The probes stop after this long, however many were taken, so that the test ends before the fix too. */
    private static final Duration PROBING = Duration.ofSeconds(20);

    /** Generous: the attack made it 7 to 8 s, the service answers it in about 10 ms. */
    private static final Duration HEALTH_MEDIAN_BOUND = Duration.ofMillis(1000);

    /** An answer to a refused frame echoes none of it: a few hundred bytes (it echoed the megabyte). */
    private static final int SMALL_ANSWER = 4096;

    @Test
    void expandingFramesAreRefusedOffTheEventLoopWhileTheServiceKeepsAnswering() throws Exception {
        byte[] packed = packedEmptyMaps();
        String text = textEmptyMaps();
        ConcurrentLinkedQueue<String> wrong = new ConcurrentLinkedQueue<>();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong answered = new AtomicLong();
        List<Long> healthMillis = new ArrayList<>();
        ExecutorService attackers = Executors.newFixedThreadPool(SOCKETS);
        try {
            List<Future<?>> attacks = new ArrayList<>();
            for (int s = 0; s < SOCKETS; s++) {
                boolean binary = s % 2 == 0;
                attacks.add(attackers.submit(() -> attack(binary, packed, text, stop, wrong, answered)));
            }
            HttpClient http = HttpClient.newBuilder()
                    .connectTimeout(Duration.ofSeconds(30))
                    .build();
            HttpRequest health = HttpRequest.newBuilder(
                            URI.create("http://localhost:" + RestAssured.port + "/v1/health"))
                    .timeout(PROBE_TIMEOUT)
                    .build();
            long until = System.nanoTime() + PROBING.toNanos();
            Thread.sleep(500);
            for (int probe = 0; probe < PROBES && System.nanoTime() < until; probe++) {
                long start = System.nanoTime();
                try {
                    HttpResponse<Void> answer = http.send(health, HttpResponse.BodyHandlers.discarding());
                    healthMillis.add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
                    // 503 is the probe's own database check giving up after 2 s on a starved machine: a slow probe,
                    // which the median below weighs; anything else is wrong.
                    if (answer.statusCode() != 204 && answer.statusCode() != 503) {
                        wrong.add("the health probe during the attack answered " + answer.statusCode());
                    }
                } catch (HttpTimeoutException late) {
                    healthMillis.add(PROBE_TIMEOUT.toMillis());
                }
                Thread.sleep(PROBE_EVERY.toMillis());
            }
            stop.set(true);
            for (Future<?> attack : attacks) {
                attack.get(2, TimeUnit.MINUTES);
            }
        } finally {
            stop.set(true);
            attackers.shutdownNow();
        }

        List<Long> sorted = new ArrayList<>(healthMillis);
        Collections.sort(sorted);
        long median = sorted.get(sorted.size() / 2);
        assertTrue(
                median < HEALTH_MEDIAN_BOUND.toMillis(),
                "GET /v1/health took " + median + " ms at the median during the attack (all: " + healthMillis + ", "
                        + answered + " frames answered)");
        assertEquals(List.of(), List.copyOf(wrong), "frames not answered as undecodable");
        assertTrue(answered.get() >= SOCKETS, "every socket had a frame answered");
    }

    /**
     * The largest legitimate message post, a 256 KiB document of one-digit numbers (one value per two bytes), passes
     * the bound of values as text and as MessagePack.
     */
    @Test
    void theLargestMessagePostOfSmallValuesIsTaken() {
        String project = Api.newProject();
        try (SocketClient socket = SocketClient.open()) {
            assertEquals(
                    201,
                    socket.call(frame("queue_create", project, body().put("queue_name", "wide")))
                            .status());
            ObjectNode post = body().put("queue_name", "wide");
            ObjectNode message = post.putArray("messages").addObject().put("ttl", 300);
            ArrayNode numbers = message.putArray("body");
            // {"messages":[{"ttl":300,"body":[0,0,...]}]}: 2 bytes per number, within the 262,144 of a post.
            for (int i = 0; i < 130_000; i++) {
                numbers.add(i % 10);
            }
            SocketClient.Received text = socket.call(frame("message_post", project, post));
            assertEquals(201, text.status(), () -> "text: " + text.body());
            SocketClient.Received packed = socket.callPacked(frame("message_post", project, post));
            assertEquals(201, packed.status(), () -> "MessagePack: " + packed.body());
        }
    }

    /**
     * One anonymous socket sending an expanding frame, waiting for its answer, again until told to stop; each answer
     * must be the small 400 of an undecodable frame in the frame's own encoding.
     */
    private static void attack(
            boolean binary,
            byte[] packed,
            String text,
            AtomicBoolean stop,
            ConcurrentLinkedQueue<String> wrong,
            AtomicLong answered) {
        String kind = binary ? "MessagePack" : "JSON";
        try (SocketClient socket = SocketClient.open()) {
            while (!stop.get()) {
                if (binary) {
                    socket.sendBinary(packed);
                } else {
                    socket.sendText(text);
                }
                SocketClient.Received answer = socket.poll(SocketClient.WAIT);
                if (answer == null) {
                    wrong.add(kind + ": no answer within " + SocketClient.WAIT + ", close code "
                            + socket.closeCodeWithin(Duration.ZERO));
                    return;
                }
                String error = answer.document() == null
                        ? null
                        : answer.body().path("error").asText();
                int size = answer.binary()
                        ? SocketClient.MESSAGE_PACK.writeValueAsBytes(answer.document()).length
                        : answer.text().length();
                if (answer.binary() != binary
                        || answer.status() != 400
                        || error == null
                        || !error.startsWith(
                                "Can't decode " + (binary ? "binary (MessagePack)" : "text (JSON)") + " request.")
                        || size > SMALL_ANSWER) {
                    wrong.add(kind + ": answered " + size + " bytes, status " + answer.status() + ", error "
                            + (error == null ? null : error.substring(0, Math.min(200, error.length()))));
                    return;
                }
                answered.incrementAndGet();
            }
        } catch (Exception e) {
            wrong.add(kind + " socket failed: " + e);
        }
    }

    /** {@code {"action":"ping","body":[{},{},...]}} in MessagePack, the attack's frame. */
    private static byte[] packedEmptyMaps() {
        ByteArrayOutputStream frame = new ByteArrayOutputStream();
        frame.write(0x82);
        frame.writeBytes(new byte[] {(byte) 0xa6, 'a', 'c', 't', 'i', 'o', 'n'});
        frame.writeBytes(new byte[] {(byte) 0xa4, 'p', 'i', 'n', 'g'});
        frame.writeBytes(new byte[] {(byte) 0xa4, 'b', 'o', 'd', 'y'});
        int items = FRAME_BYTES - 30;
        frame.writeBytes(new byte[] {
            (byte) 0xdd, (byte) (items >>> 24), (byte) (items >>> 16), (byte) (items >>> 8), (byte) items
        });
        for (int i = 0; i < items; i++) {
            frame.write(0x80);
        }
        return frame.toByteArray();
    }

    /** {@code {"action":"ping","body":[{},{},...]}} in JSON. */
    private static String textEmptyMaps() {
        StringBuilder frame = new StringBuilder("{\"action\":\"ping\",\"body\":[{}");
        while (frame.length() < FRAME_BYTES - 10) {
            frame.append(",{}");
        }
        String done = frame.append("]}").toString();
        assertTrue(done.getBytes(StandardCharsets.UTF_8).length < 1_048_576);
        return done;
    }
}
