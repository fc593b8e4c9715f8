package io.pigeon.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.pigeon.testing.PostgresResource;
import io.pigeon.testing.Slow;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Delivery never loads more than it sends: Pigeon runs with a 128 MB heap while 8 groups of 100 items of
 * 240 KB each (about 190 MB) become due at once. Every call carries at most pigeon.dispatch.max-call-bytes
 * (1 MiB) of bodies, the rest goes in the group's next calls, a listing of a loaded path is a page of at most
 * 1 MiB, and the process neither dies nor runs out of memory. A listing never loads more than it shows: four
 * clients list one group of 1,000 items of 250 KB (250 MB, twice the heap) at once.
 */
@Slow
class BoundedMemoryIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int GROUPS = 8;
    private static final int ITEMS = 100;
    private static final int PAD = 240_000;
    private static final int MAX_CALL_BYTES = 1024 * 1024;

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    @Test
    void dueGroupsLargerThanTheHeapAreDeliveredInBoundedCalls() throws Exception {
        Set<String> delivered = ConcurrentHashMap.newKeySet();
        AtomicInteger duplicates = new AtomicInteger();
        AtomicLong largestCall = new AtomicLong();
        HttpServer receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        receiver.setExecutor(Executors.newFixedThreadPool(16));
        receiver.createContext("/", exchange -> {
            byte[] body;
            try (InputStream in = exchange.getRequestBody()) {
                body = in.readAllBytes();
            }
            largestCall.accumulateAndGet(body.length, Math::max);
            for (JsonNode item : JSON.readTree(body)) {
                if (!delivered.add(item.get("g").asInt() + "/" + item.get("i").asInt())) {
                    duplicates.incrementAndGet();
                }
            }
            exchange.sendResponseHeaders(204, -1);
            exchange.close();
        });
        receiver.start();
        String target = "http://127.0.0.1:" + receiver.getAddress().getPort() + "/bulk";
        String service =
                Base64.getUrlEncoder().withoutPadding().encodeToString(target.getBytes(StandardCharsets.UTF_8));

        Map<String, String> config = new HashMap<>(new PostgresResource().start());
        config.put("PIGEON_DISPATCH_ALLOWED_TARGETS", "127.0.0.0/8");
        config.put("PIGEON_DISPATCH_ALLOWED_PORTS", "*");
        Replica pigeon = Replica.start("small-heap", config, List.of("-Xmx128m", "-XX:+ExitOnOutOfMemoryError"));
        String project = "memory-" + System.nanoTime();
        try {
            pigeon.awaitReady();
            Random random = new Random(7);
            byte[] noise = new byte[PAD * 3 / 4];
            for (int g = 0; g < GROUPS; g++) {
                for (int i = 0; i < ITEMS; i++) {
                    random.nextBytes(noise);
                    String body = "{\"g\": " + g + ", \"i\": " + i + ", \"pad\": \""
                            + Base64.getEncoder().encodeToString(noise) + "\"}";
                    push(pigeon, project, g, service, "?ontime=" + (System.currentTimeMillis() / 1000 + 86_400), body);
                }
            }
            // A listing of a loaded path is one bounded page with a link to the next.
            HttpResponse<String> page =
                    pigeon.send(http, Duration.ofSeconds(30), project, "GET", "/v3/queue/bulk-0/POST/" + service, null);
            assertEquals(200, page.statusCode(), page.body());
            assertTrue(
                    page.body().length() < MAX_CALL_BYTES + 2 * PAD,
                    "page of " + page.body().length() + " characters");
            JsonNode listed = JSON.readTree(page.body());
            assertTrue(listed.get("links").size() == 1, "a next link");
            assertTrue(listed.get("groups").get(0).get("items").size() < ITEMS);
            // All groups due now, together: one more item each, moving the fire time.
            for (int g = 0; g < GROUPS; g++) {
                push(
                        pigeon,
                        project,
                        g,
                        service,
                        "?update=always",
                        "{\"g\": " + g + ", \"i\": " + ITEMS + ", \"pad\": \"\"}");
            }
            long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
            while (delivered.size() < GROUPS * (ITEMS + 1) && System.nanoTime() < deadline) {
                assertTrue(pigeon.alive(), "Pigeon died:\n" + tail(pigeon));
                Thread.sleep(200);
            }
            assertEquals(GROUPS * (ITEMS + 1), delivered.size(), "items delivered");
            assertEquals(0, duplicates.get(), "items delivered twice");
            assertTrue(largestCall.get() <= MAX_CALL_BYTES + 1024, "a call of " + largestCall.get() + " bytes");
            assertTrue(pigeon.alive(), "Pigeon died:\n" + tail(pigeon));
            assertFalse(Files.readString(pigeon.log()).contains("OutOfMemoryError"), tail(pigeon));
        } finally {
            pigeon.kill();
            receiver.stop(0);
        }
    }

    /**
     * Issue 25, item 3: a listing once read up to 1,001 items with their bodies and trimmed the page afterwards;
     * on 1,000 items of 250 KB that was 250 MB for one request. The page's byte bound now holds in SQL.
     */
    @Test
    void listingsOfAGroupLargerThanTheHeapLoadOnlyTheirPage() throws Exception {
        int items = 1000;
        int pad = 250_000;
        Map<String, String> config = new HashMap<>(new PostgresResource().start());
        config.put("PIGEON_DISPATCH_ALLOWED_TARGETS", "127.0.0.0/8");
        config.put("PIGEON_DISPATCH_ALLOWED_PORTS", "*");
        Replica pigeon =
                Replica.start("small-heap-listing", config, List.of("-Xmx128m", "-XX:+ExitOnOutOfMemoryError"));
        String project = "listing-" + System.nanoTime();
        // A target that is never called: the group is due in a day.
        String service = Base64.getUrlEncoder()
                .withoutPadding()
                .encodeToString("http://127.0.0.1:9/never".getBytes(StandardCharsets.UTF_8));
        String path = "/v3/queue/big/POST/" + service;
        try {
            pigeon.awaitReady();
            // Bodies the database compresses well, so that storing 250 MB is quick; Pigeon reads them out whole.
            String filler = "x".repeat(pad);
            HttpResponse<String> created = pigeon.send(
                    http,
                    Duration.ofSeconds(30),
                    project,
                    "POST",
                    path + "?ontime=" + (System.currentTimeMillis() / 1000 + 86_400),
                    "{\"i\": 0, \"pad\": \"" + filler + "\"}");
            assertEquals(201, created.statusCode(), created.body());
            var pushers = Executors.newFixedThreadPool(4);
            try {
                List<Future<Integer>> pushes = new ArrayList<>();
                for (int i = 1; i < items; i++) {
                    String body = "{\"i\": " + i + ", \"pad\": \"" + filler + "\"}";
                    pushes.add(
                            pushers.submit(() -> pigeon.send(http, Duration.ofSeconds(30), project, "POST", path, body)
                                    .statusCode()));
                }
                for (var pushed : pushes) {
                    assertEquals(201, pushed.get());
                }
                // Four listings at once, as in the report (there, the process was unresponsive for 3 minutes).
                List<Future<HttpResponse<String>>> listings = new ArrayList<>();
                for (int i = 0; i < 4; i++) {
                    listings.add(pushers.submit(
                            () -> pigeon.send(http, Duration.ofSeconds(60), project, "GET", path, null)));
                }
                for (var listing : listings) {
                    HttpResponse<String> page = listing.get();
                    assertEquals(200, page.statusCode(), page.body());
                    assertTrue(
                            page.body().length() < MAX_CALL_BYTES + 2 * pad,
                            "page of " + page.body().length() + " characters");
                    JsonNode listed = JSON.readTree(page.body());
                    assertEquals(1, listed.get("links").size(), "a next link");
                    assertEquals(
                            0,
                            listed.get("groups")
                                    .get(0)
                                    .get("items")
                                    .get(0)
                                    .get("body")
                                    .get("i")
                                    .asInt());
                }
            } finally {
                pushers.shutdownNow();
            }
            assertTrue(pigeon.alive(), "Pigeon died:\n" + tail(pigeon));
            assertEquals(
                    200,
                    pigeon.send(http, Duration.ofSeconds(10), project, "GET", "/q/health/ready", null)
                            .statusCode());
            assertFalse(Files.readString(pigeon.log()).contains("OutOfMemoryError"), tail(pigeon));
        } finally {
            pigeon.kill();
        }
    }

    private void push(Replica pigeon, String project, int group, String service, String query, String body)
            throws Exception {
        HttpResponse<String> pushed = pigeon.send(
                http,
                Duration.ofSeconds(30),
                project,
                "POST",
                "/v3/queue/bulk-" + group + "/POST/" + service + query,
                body);
        assertEquals(201, pushed.statusCode(), pushed.body());
    }

    private static String tail(Replica pigeon) throws IOException {
        String log = Files.readString(pigeon.log());
        return log.length() > 4000 ? log.substring(log.length() - 4000) : log;
    }
}
