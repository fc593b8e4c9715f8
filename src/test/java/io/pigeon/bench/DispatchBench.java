package io.pigeon.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The delivery engine under a burst: {@code bench.dispatch.groups} groups (10,000) pushed to /v3/queue, all
 * due at the same {@code ontime}, delivered to a receiver in this process. Prints the push rate, the groups
 * delivered per second from the due time to the last arrival, and each group's lateness against its
 * {@code ontime} (p50/p99/max). Pigeon must allow this machine as a target, which it refuses by default:
 * run it with PIGEON_DISPATCH_ALLOWED_TARGETS=127.0.0.0/8 and PIGEON_DISPATCH_ALLOWED_PORTS=*.
 */
final class DispatchBench {

    private static final ObjectMapper JSON = new ObjectMapper();

    private DispatchBench() {}

    static void run(String url) throws Exception {
        int groups = Integer.parseInt(System.getProperty("bench.dispatch.groups", "10000"));
        int pushers = Integer.parseInt(System.getProperty("bench.dispatch.clients", "16"));
        double lead = Double.parseDouble(System.getProperty("bench.dispatch.lead", "30"));
        String project = "bench-dispatch-" + UUID.randomUUID();

        List<Double> lateness = Collections.synchronizedList(new ArrayList<>());
        Set<Integer> seen = ConcurrentHashMap.newKeySet();
        AtomicInteger duplicates = new AtomicInteger();
        double[] lastArrival = {0};
        // A Vert.x server: the JDK's HttpServer tops out near 2,000 calls/s here, below what Pigeon sends.
        Vertx vertx = Vertx.vertx();
        HttpServer receiver = vertx.createHttpServer()
                .requestHandler(request -> request.body().onSuccess(buffer -> {
                    double at = System.currentTimeMillis() / 1000.0;
                    try {
                        for (JsonNode item : JSON.readTree(buffer.getBytes())) {
                            if (!seen.add(item.get("n").intValue())) {
                                duplicates.incrementAndGet();
                            }
                            lateness.add(at - item.get("ontime").doubleValue());
                        }
                    } catch (IOException e) {
                        request.response().setStatusCode(400).end();
                        return;
                    }
                    synchronized (lastArrival) {
                        lastArrival[0] = Math.max(lastArrival[0], at);
                    }
                    request.response().setStatusCode(204).end();
                }))
                .listen(0, "127.0.0.1")
                .toCompletionStage()
                .toCompletableFuture()
                .get();
        String service = Base64.getUrlEncoder()
                .withoutPadding()
                .encodeToString(
                        ("http://127.0.0.1:" + receiver.actualPort() + "/receive").getBytes(StandardCharsets.UTF_8));

        double ontime = Math.ceil(System.currentTimeMillis() / 1000.0 + lead);
        String ontimeParam = String.format(Locale.ROOT, "%.3f", ontime);
        HttpClient client =
                HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        ExecutorService pool = Executors.newFixedThreadPool(pushers);
        AtomicInteger next = new AtomicInteger();
        long pushStart = System.nanoTime();
        List<Future<?>> running = new ArrayList<>();
        for (int p = 0; p < pushers; p++) {
            running.add(pool.submit(() -> {
                for (int n = next.getAndIncrement(); n < groups; n = next.getAndIncrement()) {
                    HttpRequest request = HttpRequest.newBuilder(URI.create(
                                    url + "/v3/queue/burst-" + n + "/POST/" + service + "?ontime=" + ontimeParam))
                            .header("X-Project-Id", project)
                            .header("Content-Type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString(
                                    "{\"n\": " + n + ", \"ontime\": " + ontimeParam + "}"))
                            .build();
                    HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
                    if (response.statusCode() != 201) {
                        throw new IllegalStateException(
                                "push answered " + response.statusCode() + ": " + response.body());
                    }
                }
                return null;
            }));
        }
        for (Future<?> future : running) {
            future.get();
        }
        pool.shutdown();
        double pushSeconds = (System.nanoTime() - pushStart) / 1e9;
        double pushedAt = System.currentTimeMillis() / 1000.0;
        System.out.printf(
                "Pushed %d groups with %d clients in %.2f s (%.0f pushes/s); due at %s, %.1f s after the last push%n",
                groups, pushers, pushSeconds, groups / pushSeconds, ontimeParam, ontime - pushedAt);
        if (pushedAt > ontime) {
            System.out.println("WARNING: the pushes ended after the due time; raise bench.dispatch.lead");
        }
        long deadline =
                System.nanoTime() + Duration.ofSeconds((long) lead + 300).toNanos();
        while (seen.size() < groups && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        receiver.close();
        vertx.close();
        double[] sorted =
                lateness.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        double span = lastArrival[0] - ontime;
        System.out.printf(
                "Delivered %d of %d groups (%d duplicates) in %.2f s after the due time: %.0f groups/s%n",
                seen.size(), groups, duplicates.get(), span, seen.size() / span);
        System.out.printf(
                "Lateness against ontime: p50 %.3f s, p99 %.3f s, max %.3f s; first arrival %.3f s%n",
                sorted[(int) (sorted.length * 0.50)],
                sorted[Math.min(sorted.length - 1, (int) (sorted.length * 0.99))],
                sorted[sorted.length - 1],
                sorted[0]);
    }
}
