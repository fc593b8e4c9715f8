package io.pigeon.api.ws;

import static io.pigeon.api.ws.SocketClient.frame;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.testing.Api;
import io.pigeon.testing.Eventually;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
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
 * Fuzz of MessagePack frames whose headers lie about their lengths, sent as an outside attack sent them: over many
 * anonymous sockets at once, each frame answered before the next. Every one must get the answer of any malformed binary
 * frame (400, "Can't decode binary (MessagePack) request. ...") on a socket that stays open, and the service must keep
 * answering meanwhile: the attack, when a 5-byte frame cost a 64 MiB allocation on the event loop, made {@code GET
 * /v1/health} take 5.7 s at the median instead of 0.01 s.
 */
@QuarkusTest
class ZaqarSocketLyingFramesTest {

    private static final int SOCKETS = 64;

    /** Frames a socket sends ahead of their answers: below the bound of frames in flight (16), which closes it. */
    private static final int IN_FLIGHT = 12;

    /** Health probes taken while the attack runs, one every {@link #PROBE_EVERY}. */
    private static final int PROBES = 40;

    private static final Duration PROBE_EVERY = Duration.ofMillis(150);

    /** Generous: the attack made it 5.7 s, the service answers it in about 10 ms. */
    private static final Duration HEALTH_MEDIAN_BOUND = Duration.ofMillis(1000);

    @Test
    void lyingLengthsAreRefusedAsMalformedWhileTheServiceKeepsAnswering() throws Exception {
        List<LyingFrames.Lying> frames = LyingFrames.all();
        ConcurrentLinkedQueue<String> wrong = new ConcurrentLinkedQueue<>();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong answered = new AtomicLong();
        List<Long> healthMillis = new ArrayList<>();
        ExecutorService attackers = Executors.newFixedThreadPool(SOCKETS);
        try {
            List<Future<?>> attacks = new ArrayList<>();
            for (int s = 0; s < SOCKETS; s++) {
                int first = s;
                attacks.add(attackers.submit(() -> attack(frames, first, stop, wrong, answered)));
            }
            HttpClient http = HttpClient.newBuilder()
                    .connectTimeout(Duration.ofSeconds(30))
                    .build();
            HttpRequest health = HttpRequest.newBuilder(
                            URI.create("http://localhost:" + RestAssured.port + "/v1/health"))
                    .timeout(Duration.ofSeconds(60))
                    .build();
            for (int probe = 0; probe < PROBES; probe++) {
                long start = System.nanoTime();
                HttpResponse<Void> answer = http.send(health, HttpResponse.BodyHandlers.discarding());
                healthMillis.add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
                // 503 is the probe's own database check giving up after 2 s on a starved machine: a slow probe, which
                // the median below weighs; anything else is wrong.
                if (answer.statusCode() != 204 && answer.statusCode() != 503) {
                    wrong.add("the health probe during the attack answered " + answer.statusCode());
                }
                Thread.sleep(PROBE_EVERY.toMillis());
            }
            stop.set(true);
            for (Future<?> attack : attacks) {
                attack.get(5, TimeUnit.MINUTES);
            }
        } finally {
            stop.set(true);
            attackers.shutdownNow();
        }

        assertEquals(List.of(), List.copyOf(wrong), "frames not answered as malformed");
        assertTrue(answered.get() >= (long) SOCKETS * frames.size(), "every socket sent every frame at least once");
        List<Long> sorted = new ArrayList<>(healthMillis);
        Collections.sort(sorted);
        long median = sorted.get(sorted.size() / 2);
        assertTrue(
                median < HEALTH_MEDIAN_BOUND.toMillis(),
                "GET /v1/health took " + median + " ms at the median during the attack (all: " + healthMillis + ", "
                        + answered + " frames answered)");

        // Once the attack is over the service is healthy.
        Eventually.await(
                "GET /v1/health answering 204 after the attack",
                Duration.ofSeconds(10),
                () -> RestAssured.given().get("/v1/health").then().extract().statusCode() == 204);
        // And a well-formed frame is still served as usual.
        try (SocketClient socket = SocketClient.open()) {
            assertEquals(
                    200,
                    socket.callPacked(frame("queue_list", Api.newProject(), null))
                            .status());
        }
    }

    /**
     * One anonymous socket sending every lying frame once, starting at {@code first}, then the attack's frame (a string
     * declaring 64 MiB, in each place) again and again until told to stop, with up to {@link #IN_FLIGHT} frames sent
     * ahead of their answers; each answer is checked.
     */
    private static void attack(
            List<LyingFrames.Lying> frames,
            int first,
            AtomicBoolean stop,
            ConcurrentLinkedQueue<String> wrong,
            AtomicLong answered) {
        List<LyingFrames.Lying> widest =
                frames.stream().filter(LyingFrames.Lying::isTheAttack).toList();
        Deque<LyingFrames.Lying> unanswered = new ArrayDeque<>();
        try (SocketClient socket = SocketClient.open()) {
            for (int sent = 0; sent < frames.size() || !stop.get() || !unanswered.isEmpty(); ) {
                boolean sending = sent < frames.size() || !stop.get();
                if (sending && unanswered.size() < IN_FLIGHT) {
                    LyingFrames.Lying lying = sent < frames.size()
                            ? frames.get((first + sent) % frames.size())
                            : widest.get((first + sent) % widest.size());
                    socket.sendBinary(lying.bytes());
                    unanswered.add(lying);
                    sent++;
                    continue;
                }
                LyingFrames.Lying lying = unanswered.remove();
                SocketClient.Received answer = socket.poll(SocketClient.WAIT);
                if (answer == null) {
                    wrong.add(lying + ": no answer within " + SocketClient.WAIT + ", close code "
                            + socket.closeCodeWithin(Duration.ZERO));
                    return;
                }
                String error = answer.document() == null
                        ? null
                        : answer.body().path("error").asText();
                if (!answer.binary()
                        || answer.status() != 400
                        || error == null
                        || !error.startsWith("Can't decode binary (MessagePack) request.")) {
                    wrong.add(lying + ": answered " + answer.document());
                }
                answered.incrementAndGet();
            }
        } catch (RuntimeException e) {
            wrong.add("socket " + first + " failed: " + e);
        }
    }
}
