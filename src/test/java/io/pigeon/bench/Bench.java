package io.pigeon.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * Load against a running Pigeon (v1 or v2 API): producers only (posts of 10), consumers only (claim 10, then
 * delete them by ids) and the full cycle (post 10, claim 10, delete 10), each with 1, 4 and 16 clients.
 * Prints messages/s and p50/p99 latency per request type. Not a test: run it with {@code ./mvnw -Pbench}.
 *
 * <p>Settings (system properties): {@code bench.url} (http://localhost:8080), {@code bench.seconds} (10 per
 * run), {@code bench.clients} (1,4,16), {@code bench.api} (v1), {@code bench.scenarios} (produce,consume,cycle;
 * {@code dispatch} runs {@link DispatchBench} instead; {@code depth} runs the cycle on queues holding
 * {@code bench.depths} messages, 1000,1000000; {@code ratio} runs {@link RatioRun}, {@code soak} {@link SoakBench},
 * {@code pools} {@link PoolsBench} with the largest of {@code bench.clients}, {@code sample} {@link QueueSampleBench}, {@code sigv4}
 * {@link SigV4Bench}, {@code sqs-wire} {@link SqsWireBench}, {@code sqs-wake} {@link SqsWakeBench}, {@code groups}
 * {@link GroupsBench};
 * the costs that should stay flat, any of them in one run: {@code backlog} {@link BacklogBench}, {@code many-queues}
 * {@link ManyQueuesBench}, {@code sizes} {@link SizesBench}, {@code idle} {@link IdleBench}).
 */
public final class Bench {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String TEN_MESSAGES = IntStream.range(0, 10)
            .mapToObj(i -> "{\"ttl\": 3600, \"body\": {\"event\": \"bench\", \"n\": " + i
                    + ", \"pad\": \"0123456789abcdef\"}}")
            .collect(Collectors.joining(",", "[", "]"));

    private final String base;
    /** "v1" or "v2": the URL prefix, and the shape of posts and claims. */
    private final String api;

    private final String batchOfTen;
    private final Duration runTime;
    private final String project = "bench-" + UUID.randomUUID();
    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();

    private Bench(String base, Duration runTime, String api) {
        this.base = base;
        this.runTime = runTime;
        this.api = api;
        this.batchOfTen = api.equals("v2") ? "{\"messages\": " + TEN_MESSAGES + "}" : TEN_MESSAGES;
    }

    public static void main(String[] args) throws Exception {
        String url = System.getProperty("bench.url", "http://localhost:8080");
        int seconds = Integer.parseInt(System.getProperty("bench.seconds", "10"));
        int[] clientCounts = Arrays.stream(
                        System.getProperty("bench.clients", "1,4,16").split(","))
                .map(String::trim)
                .mapToInt(Integer::parseInt)
                .toArray();
        String api = System.getProperty("bench.api", "v1");
        if (!api.equals("v1") && !api.equals("v2")) {
            throw new IllegalArgumentException("bench.api is v1 or v2");
        }
        Set<String> scenarios = Set.of(
                System.getProperty("bench.scenarios", "produce,consume,cycle").split(","));
        if (scenarios.contains("sigv4")) {
            SigV4Bench.run(seconds);
            return;
        }
        if (scenarios.contains("sqs-wire")) {
            SqsWireBench.run(url, seconds, clientCounts);
            return;
        }
        if (scenarios.contains("groups")) {
            GroupsBench.run(url, seconds, clientCounts);
            return;
        }
        if (scenarios.contains("sqs-wake")) {
            SqsWakeBench.run(url);
            return;
        }
        if (scenarios.contains("sample")) {
            QueueSampleBench.run(url);
            return;
        }
        if (scenarios.contains("dispatch")) {
            DispatchBench.run(url);
            return;
        }
        if (scenarios.contains("ratio")) {
            RatioRun.run(url, seconds, clientCounts);
            return;
        }
        if (scenarios.contains("pools")) {
            PoolsBench.run(url, seconds, Arrays.stream(clientCounts).max().orElse(16));
            return;
        }
        if (scenarios.stream().anyMatch(FLAT_COSTS::contains)) {
            flatCosts(scenarios, url, seconds, clientCounts);
            return;
        }
        if (scenarios.contains("soak")) {
            SoakBench.run(
                    url,
                    Integer.parseInt(System.getProperty("bench.soak.seconds", "60")),
                    clientCounts.length == 1 ? clientCounts[0] : 8);
            return;
        }
        Bench bench = new Bench(url, Duration.ofSeconds(seconds), api);
        System.out.printf(
                "Pigeon benchmark (%s API) against %s, %d s per run, project %s%n", api, url, seconds, bench.project);
        System.out.printf(
                "%-10s %7s %12s  %s%n", "scenario", "clients", "messages/s", "latency p50/p99 (ms) per request");
        if (scenarios.contains("depth")) {
            // The full cycle on a queue that holds a standing backlog: claims take its oldest messages and posts
            // add new ones, so the depth stays the same while the latencies are measured.
            for (String depth :
                    System.getProperty("bench.depths", "1000,1000000").split(",")) {
                String queue = "depth-" + depth.trim();
                bench.put("/" + api + "/queues/" + queue);
                long started = System.nanoTime();
                bench.prefill(queue, Long.parseLong(depth.trim()));
                System.out.printf(
                        "(%s messages waiting, posted in %.0f s)%n", depth.trim(), (System.nanoTime() - started) / 1e9);
                for (int clients : clientCounts) {
                    bench.report("depth " + depth.trim(), clients, bench.run(clients, queue, Scenario.CYCLE));
                }
            }
            return;
        }
        for (int clients : clientCounts) {
            String queue = "bench-" + clients;
            bench.put("/" + api + "/queues/" + queue);
            if (scenarios.contains("produce")) {
                bench.report("produce", clients, bench.run(clients, queue, Scenario.PRODUCE));
            }
            if (scenarios.contains("consume")) {
                bench.report("consume", clients, bench.run(clients, queue, Scenario.CONSUME));
            }
            if (scenarios.contains("cycle")) {
                String cycleQueue = "bench-cycle-" + clients;
                bench.put("/" + api + "/queues/" + cycleQueue);
                bench.report("cycle", clients, bench.run(clients, cycleQueue, Scenario.CYCLE));
            }
        }
    }

    /** The scenarios of costs that should stay flat as backlogs, queues, bodies and idle clients grow. */
    private static final List<String> FLAT_COSTS = List.of("backlog", "many-queues", "sizes", "idle");

    /** Each of the flat-cost scenarios asked for, in the order of {@link #FLAT_COSTS}. */
    private static void flatCosts(Set<String> scenarios, String url, int seconds, int[] clientCounts) throws Exception {
        if (scenarios.contains("backlog")) {
            BacklogBench.run(url, seconds, clientCounts);
        }
        if (scenarios.contains("many-queues")) {
            ManyQueuesBench.run(url, seconds, clientCounts);
        }
        if (scenarios.contains("sizes")) {
            SizesBench.run(url, seconds, clientCounts);
        }
        if (scenarios.contains("idle")) {
            IdleBench.run(url);
        }
    }

    private enum Scenario {
        PRODUCE,
        CONSUME,
        CYCLE
    }

    /** What one client did: messages moved, and latencies in microseconds per request type. */
    private static final class Tally {
        long messages;
        final List<Long> post = new ArrayList<>();
        final List<Long> claim = new ArrayList<>();
        final List<Long> delete = new ArrayList<>();
        long nanos;
    }

    private List<Tally> run(int clients, String queue, Scenario scenario) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        try {
            List<Future<Tally>> futures = new ArrayList<>();
            long deadline = System.nanoTime() + runTime.toNanos();
            for (int c = 0; c < clients; c++) {
                futures.add(pool.submit(() -> client(queue, scenario, deadline)));
            }
            List<Tally> tallies = new ArrayList<>();
            for (Future<Tally> future : futures) {
                tallies.add(future.get());
            }
            return tallies;
        } finally {
            pool.shutdownNow();
        }
    }

    /** Posts {@code count} messages (batches of ten, 16 clients), so that a queue starts with a backlog. */
    private void prefill(String queue, long count) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(16);
        AtomicLong posted = new AtomicLong();
        try {
            List<Future<Object>> futures = new ArrayList<>();
            for (int c = 0; c < 16; c++) {
                futures.add(pool.submit(() -> {
                    String clientId = UUID.randomUUID().toString();
                    while (posted.addAndGet(10) <= count) {
                        expect(
                                send(request("/" + api + "/queues/" + queue + "/messages", clientId)
                                        .POST(HttpRequest.BodyPublishers.ofString(batchOfTen))
                                        .build()),
                                201);
                    }
                    return null;
                }));
            }
            for (Future<Object> future : futures) {
                future.get();
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private Tally client(String queue, Scenario scenario, long deadline) throws Exception {
        String clientId = UUID.randomUUID().toString();
        Tally tally = new Tally();
        long start = System.nanoTime();
        while (System.nanoTime() < deadline) {
            if (scenario != Scenario.CONSUME) {
                long t0 = System.nanoTime();
                HttpResponse<String> posted = send(request("/" + api + "/queues/" + queue + "/messages", clientId)
                        .POST(HttpRequest.BodyPublishers.ofString(batchOfTen))
                        .build());
                tally.post.add((System.nanoTime() - t0) / 1000);
                expect(posted, 201);
                if (scenario == Scenario.PRODUCE) {
                    tally.messages += 10;
                    continue;
                }
            }
            long t1 = System.nanoTime();
            HttpResponse<String> claimed = send(request("/" + api + "/queues/" + queue + "/claims?limit=10", clientId)
                    .POST(HttpRequest.BodyPublishers.ofString("{\"ttl\": 60, \"grace\": 60}"))
                    .build());
            tally.claim.add((System.nanoTime() - t1) / 1000);
            if (claimed.statusCode() == 204) {
                if (scenario == Scenario.CONSUME) {
                    break; // drained
                }
                continue;
            }
            expect(claimed, 201);
            List<String> ids = new ArrayList<>();
            JsonNode claimedBody = JSON.readTree(claimed.body());
            for (JsonNode message : api.equals("v2") ? claimedBody.get("messages") : claimedBody) {
                String href = message.get("href").asText();
                ids.add(href.substring(href.lastIndexOf('/') + 1, href.indexOf('?')));
            }
            long t2 = System.nanoTime();
            HttpResponse<String> deleted =
                    send(request("/" + api + "/queues/" + queue + "/messages?ids=" + String.join(",", ids), clientId)
                            .DELETE()
                            .build());
            tally.delete.add((System.nanoTime() - t2) / 1000);
            expect(deleted, 204);
            tally.messages += ids.size();
        }
        tally.nanos = System.nanoTime() - start;
        return tally;
    }

    private HttpRequest.Builder request(String path, String clientId) {
        return HttpRequest.newBuilder(URI.create(base + path))
                .header("X-Project-Id", project)
                .header("Client-ID", clientId)
                .header("Content-Type", "application/json")
                .timeout(Duration.ofSeconds(30));
    }

    private void put(String path) throws Exception {
        HttpResponse<String> response = send(request(path, UUID.randomUUID().toString())
                .PUT(HttpRequest.BodyPublishers.noBody())
                .build());
        if (response.statusCode() != 201 && response.statusCode() != 204) {
            throw new IllegalStateException("PUT " + path + " answered " + response.statusCode());
        }
    }

    private HttpResponse<String> send(HttpRequest request) throws Exception {
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }

    private static void expect(HttpResponse<String> response, int status) {
        if (response.statusCode() != status) {
            throw new IllegalStateException(response.request().method() + " "
                    + response.request().uri() + " answered " + response.statusCode() + ": " + response.body());
        }
    }

    private void report(String scenario, int clients, List<Tally> tallies) {
        long messages = tallies.stream().mapToLong(t -> t.messages).sum();
        double seconds = tallies.stream().mapToLong(t -> t.nanos).max().orElse(1) / 1e9;
        StringBuilder latencies = new StringBuilder();
        latency(
                latencies,
                "post",
                tallies.stream().flatMap(t -> t.post.stream()).toList());
        latency(
                latencies,
                "claim",
                tallies.stream().flatMap(t -> t.claim.stream()).toList());
        latency(
                latencies,
                "delete",
                tallies.stream().flatMap(t -> t.delete.stream()).toList());
        System.out.printf(Locale.ROOT, "%-10s %7d %12.0f  %s%n", scenario, clients, messages / seconds, latencies);
    }

    private static void latency(StringBuilder out, String name, List<Long> micros) {
        if (micros.isEmpty()) {
            return;
        }
        long[] sorted = micros.stream().mapToLong(Long::longValue).sorted().toArray();
        out.append(String.format(
                Locale.ROOT,
                "%s %.2f/%.2f  ",
                name,
                percentile(sorted, 0.50) / 1000.0,
                percentile(sorted, 0.99) / 1000.0));
    }

    private static long percentile(long[] sorted, double p) {
        return sorted[(int) Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
    }
}
