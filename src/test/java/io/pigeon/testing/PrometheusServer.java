package io.pigeon.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;

/**
 * A real Prometheus for a test (Debian's package, which {@code .ci/run} installs): its own port, configuration, rule
 * files and storage in a temporary folder, all removed by {@link #close()}. Its HTTP API is read as a dashboard or an
 * alert manager reads it.
 */
public final class PrometheusServer implements AutoCloseable {

    public static final Path BINARY = Path.of("/usr/bin/prometheus");
    private static final Duration STARTING = Duration.ofSeconds(60);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Path home;
    private final Process process;
    private final String address;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private PrometheusServer(Path home, Process process, String address) {
        this.home = home;
        this.process = process;
        this.address = address;
    }

    public static boolean installed() {
        return Files.isExecutable(BINARY);
    }

    /**
     * Starts Prometheus with {@code configuration} (its prometheus.yml) and {@code files} (name to content, written
     * beside it: the rule files the configuration names), and waits until it says it is ready.
     */
    public static PrometheusServer start(String configuration, Map<String, String> files) throws IOException {
        Path home = Files.createTempDirectory("pigeon-prometheus");
        Files.writeString(home.resolve("prometheus.yml"), configuration);
        for (Map.Entry<String, String> file : files.entrySet()) {
            Files.writeString(home.resolve(file.getKey()), file.getValue());
        }
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        Process process = new ProcessBuilder(
                        BINARY.toString(),
                        "--config.file=" + home.resolve("prometheus.yml"),
                        "--storage.tsdb.path=" + home.resolve("data"),
                        "--web.listen-address=127.0.0.1:" + port)
                .redirectErrorStream(true)
                .redirectOutput(home.resolve("prometheus.log").toFile())
                .start();
        PrometheusServer server = new PrometheusServer(home, process, "http://127.0.0.1:" + port);
        try {
            server.awaitReady();
        } catch (RuntimeException | Error e) {
            server.close();
            throw e;
        }
        return server;
    }

    /** Waits for {@code /-/ready}: until then its query API answers 503, which says nothing about Pigeon. */
    private void awaitReady() {
        within("Prometheus ready", STARTING, () -> {
            try {
                return get("/-/ready").statusCode() == 200;
            } catch (IOException e) {
                return false; // still starting
            }
        });
    }

    /** {@link Eventually#await}, with Prometheus's log in the failure. */
    public void within(String what, Duration bound, BooleanSupplier condition) {
        try {
            Eventually.await(what, bound, condition);
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + "\nPrometheus log:\n" + log(), e);
        }
    }

    /** The {@code data.result} of an instant query; fails on any answer but 200 (a query that does not parse). */
    public JsonNode query(String promql) throws IOException {
        HttpResponse<String> answer = get("/api/v1/query?query=" + URLEncoder.encode(promql, StandardCharsets.UTF_8));
        assertEquals(200, answer.statusCode(), promql + " -> " + answer.body());
        return JSON.readTree(answer.body()).path("data").path("result");
    }

    /** The single value an instant query answers; empty when it answers none. */
    public Optional<Double> value(String promql) throws IOException {
        JsonNode result = query(promql);
        if (result.isEmpty()) {
            return Optional.empty();
        }
        assertEquals(1, result.size(), "one series: " + result);
        return Optional.of(Double.parseDouble(result.get(0).path("value").get(1).asText()));
    }

    /** A document of its HTTP API, such as {@code /api/v1/rules}. */
    public JsonNode document(String path) throws IOException {
        HttpResponse<String> answer = get(path);
        assertEquals(200, answer.statusCode(), path + " -> " + answer.body());
        return JSON.readTree(answer.body());
    }

    public String log() {
        try {
            return Files.readString(home.resolve("prometheus.log"));
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    private HttpResponse<String> get(String path) throws IOException {
        try {
            return http.send(
                    HttpRequest.newBuilder(URI.create(address + path))
                            .timeout(Duration.ofSeconds(5))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
    }

    @Override
    public void close() throws IOException {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try (Stream<Path> files = Files.walk(home)) {
            files.sorted(Comparator.reverseOrder())
                    .forEach(file -> file.toFile().delete());
        }
    }
}
