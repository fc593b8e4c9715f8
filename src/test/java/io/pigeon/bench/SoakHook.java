package io.pigeon.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The soak's traffic beside the wrk cycle ({@link SoakBench}): what a cycle through wrk does not exercise. A queue
 * with a webhook subscription to a receiver in this process, posted to at a low fixed rate, each message stamped with
 * its sending time so that the receiver measures the delivery lag, and read back by id (the request type "get");
 * its messages live 60 s, so the sweeper deletes them. And a scraper that reads /q/metrics and /q/metrics/queues of
 * every replica every 15 s, as Prometheus would. Pigeon must allow the receiver as a target
 * (PIGEON_DISPATCH_ALLOWED_TARGETS=127.0.0.0/8, PIGEON_DISPATCH_ALLOWED_PORTS=*).
 */
final class SoakHook implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String QUEUE = "hooked";
    private static final long SCRAPE_SECONDS = 15;

    private final List<String> urls;
    private final List<BenchQueues> replicas;
    private final String project;
    private final Vertx vertx = Vertx.vertx();
    private final ScheduledExecutorService timers = Executors.newScheduledThreadPool(2);
    private final HttpClient scrapes =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final AtomicLong sent = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();
    private final AtomicLong scrapeFailures = new AtomicLong();
    /** Since the last {@link #drain()}: delivery lags and get latencies, ms; the slowest scrape, ms. */
    private final List<Double> lags = new ArrayList<>();

    private final List<Double> gets = new ArrayList<>();
    private double slowestScrape;
    private long delivered;
    private volatile String lastError = "";

    private SoakHook(List<String> urls, String project) {
        this.urls = urls;
        this.replicas = urls.stream().map(BenchQueues::new).toList();
        this.project = project;
    }

    /** What the side traffic saw over one interval: p99s in ms (NaN without samples), counts since the start. */
    record Figures(
            double getP99,
            double lagP99,
            long delivered,
            long sent,
            long errors,
            double slowestScrapeMs,
            long scrapeFailures,
            String lastError) {}

    /** The receiver, the queue and its subscription, then the posts ({@code rate} a second, over the replicas). */
    static SoakHook start(List<String> urls, String project, double rate) throws Exception {
        SoakHook hook = new SoakHook(urls, project);
        try {
            hook.begin(rate);
            return hook;
        } catch (Exception | Error e) {
            hook.close();
            throw e;
        }
    }

    private void begin(double rate) throws Exception {
        HttpServer receiver = vertx.createHttpServer()
                .requestHandler(request -> request.body().onSuccess(buffer -> {
                    double at = System.currentTimeMillis();
                    try {
                        double lag = at
                                - JSON.readTree(buffer.getBytes())
                                        .path("body")
                                        .path("sent")
                                        .asDouble();
                        synchronized (this) {
                            lags.add(lag);
                            delivered++;
                        }
                        request.response().setStatusCode(204).end();
                    } catch (Exception e) {
                        request.response().setStatusCode(400).end();
                    }
                }))
                .listen(0, "127.0.0.1")
                .toCompletionStage()
                .toCompletableFuture()
                .get();
        BenchQueues first = replicas.get(0);
        expect(first.send("PUT", project, "/v2/queues/" + QUEUE, null), "create the hooked queue");
        expect(
                first.send(
                        "POST",
                        project,
                        "/v2/queues/" + QUEUE + "/subscriptions",
                        "{\"subscriber\": \"http://127.0.0.1:" + receiver.actualPort()
                                + "/hook\", \"ttl\": 86400, \"options\": {}}"),
                "subscribe the receiver");
        timers.scheduleAtFixedRate(this::postAndGet, 0, Math.round(1_000_000 / rate), TimeUnit.MICROSECONDS);
        timers.scheduleAtFixedRate(this::scrape, 0, SCRAPE_SECONDS, TimeUnit.SECONDS);
    }

    /** One stamped message to the next replica, then read back by id from it. */
    private void postAndGet() {
        BenchQueues replica = replicas.get((int) (sent.getAndIncrement() % replicas.size()));
        try {
            HttpResponse<String> posted = replica.send(
                    "POST",
                    project,
                    "/v2/queues/" + QUEUE + "/messages",
                    "{\"messages\": [{\"ttl\": 60, \"body\": {\"sent\": " + System.currentTimeMillis() + "}}]}");
            expect(posted, "post");
            String href = JSON.readTree(posted.body()).get("resources").get(0).asText();
            long started = System.nanoTime();
            HttpResponse<String> read = replica.send("GET", project, href, null);
            double ms = (System.nanoTime() - started) / 1e6;
            expect(read, "get");
            synchronized (this) {
                gets.add(ms);
            }
        } catch (Exception e) {
            errors.incrementAndGet();
            lastError = String.valueOf(e.getMessage());
        }
    }

    /** /q/metrics and /q/metrics/queues of every replica, as a Prometheus scrape reads them. */
    private void scrape() {
        for (String url : urls) {
            for (String path : List.of("/q/metrics", "/q/metrics/queues")) {
                long started = System.nanoTime();
                try {
                    HttpResponse<Void> answer = scrapes.send(
                            HttpRequest.newBuilder(URI.create(url + path))
                                    .timeout(Duration.ofSeconds(10))
                                    .build(),
                            HttpResponse.BodyHandlers.discarding());
                    if (answer.statusCode() != 200) {
                        scrapeFailures.incrementAndGet();
                    }
                } catch (Exception e) {
                    scrapeFailures.incrementAndGet();
                }
                double ms = (System.nanoTime() - started) / 1e6;
                synchronized (this) {
                    slowestScrape = Math.max(slowestScrape, ms);
                }
            }
        }
    }

    /** The figures since the last call, which starts the next interval's. */
    synchronized Figures drain() {
        Figures figures = new Figures(
                p99(gets),
                p99(lags),
                delivered,
                sent.get(),
                errors.get(),
                slowestScrape,
                scrapeFailures.get(),
                lastError);
        gets.clear();
        lags.clear();
        slowestScrape = 0;
        return figures;
    }

    private static double p99(List<Double> values) {
        if (values.isEmpty()) {
            return Double.NaN;
        }
        return SqsWakeBench.percentile(values.stream().sorted().toList(), 0.99);
    }

    private static void expect(HttpResponse<String> answer, String what) {
        if (answer.statusCode() >= 300) {
            throw new IllegalStateException(what + " answered " + answer.statusCode() + ": " + answer.body());
        }
    }

    @Override
    public void close() {
        timers.shutdownNow();
        vertx.close();
    }
}
