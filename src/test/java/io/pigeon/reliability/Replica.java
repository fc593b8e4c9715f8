package io.pigeon.reliability;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * A Pigeon process started from the packaged application, for tests that crash or restart things: its HTTP port and
 * its gRPC port (the KEDA external scaler), each free when it started, so that replicas on one machine do not meet.
 */
public record Replica(String name, Process process, int port, int grpcPort, Path log) {

    /** The ports handed to replicas of this JVM, none of which is chosen again. */
    private static final Set<Integer> HANDED_OUT = new HashSet<>();

    /**
     * JVM options for a replica that lives for a test: the first JIT tier only. The optimising compiler's threads take
     * a loaded 2-core machine's CPU from the start itself (about half of a replica's start there) and pay off only
     * over a long run; even TwoReplicasCrashIT's 100,000 messages ran faster without them. The code that runs is the
     * same; the code cache keeps the size every tier gets (alone, the first tier reserves 48 MiB). The memory,
     * restart and redrive-rate checks keep the default JIT, as a deployment runs.
     */
    public static final List<String> FIRST_JIT_TIER =
            List.of("-XX:TieredStopAtLevel=1", "-XX:ReservedCodeCacheSize=240m");

    /** Starts the packaged application on a free port, with {@code config} (Quarkus property names) as its environment. */
    public static Replica start(String name, Map<String, String> database) throws IOException {
        return start(name, database, List.of());
    }

    /** As {@link #start(String, Map)}, with JVM options (e.g. a heap bound) before {@code -jar}. */
    public static Replica start(String name, Map<String, String> database, List<String> jvmOptions) throws IOException {
        Path jar = Path.of("target", "quarkus-app", "quarkus-run.jar");
        assertTrue(Files.exists(jar), "package the application first: " + jar);
        int[] ports = freePorts(2);
        int port = ports[0];
        int grpcPort = ports[1];
        Path log = Files.createTempFile("pigeon-" + name, ".log");
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        command.add("-jar");
        command.add(jar.toString());
        ProcessBuilder builder =
                new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        Map<String, String> env = builder.environment();
        env.put("QUARKUS_HTTP_PORT", Integer.toString(port));
        env.put("QUARKUS_GRPC_SERVER_PORT", Integer.toString(grpcPort));
        // An empty map means the database named by this process's own QUARKUS_DATASOURCE_* (inherited).
        database.forEach((key, value) -> env.put(key.toUpperCase(Locale.ROOT).replace('.', '_'), value));
        env.put("QUARKUS_LOG_CONSOLE_JSON_ENABLED", "false");
        return new Replica(name, builder.start(), port, grpcPort, log);
    }

    /**
     * {@code count} free ports, distinct from each other and from every port handed to a replica of this JVM before:
     * the sockets are held open together while chosen (one closed before the next is opened may be given again, as
     * HTTP's and gRPC's ports once were, and the replica could not start), and a port handed out is never chosen again.
     */
    private static synchronized int[] freePorts(int count) throws IOException {
        List<ServerSocket> held = new ArrayList<>();
        try {
            int[] ports = new int[count];
            int found = 0;
            while (found < count) {
                ServerSocket socket = new ServerSocket(0);
                held.add(socket);
                if (HANDED_OUT.add(socket.getLocalPort())) {
                    ports[found++] = socket.getLocalPort();
                }
            }
            return ports;
        } finally {
            for (ServerSocket socket : held) {
                socket.close();
            }
        }
    }

    /** A JSON request as the tests' clients send it; {@code project} null means none (v1's default project). */
    public HttpResponse<String> send(
            HttpClient http, Duration timeout, String project, String method, String path, String body)
            throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url() + path))
                .timeout(timeout)
                .header("Client-ID", "3381af92-2b9e-11e3-b191-71861300734c")
                .header("Content-Type", "application/json")
                .method(
                        method,
                        body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (project != null) {
            request.header("X-Project-Id", project);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    public String url() {
        return "http://127.0.0.1:" + port;
    }

    public boolean alive() {
        return process.isAlive();
    }

    public void awaitReady() throws Exception {
        HttpClient client = HttpClient.newHttpClient();
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            assertTrue(process.isAlive(), "replica " + name + " exited:\n" + Files.readString(log));
            try {
                if (client.send(
                                        HttpRequest.newBuilder(URI.create(url() + "/v1/health"))
                                                .build(),
                                        HttpResponse.BodyHandlers.discarding())
                                .statusCode()
                        == 204) {
                    return;
                }
            } catch (IOException e) {
                // not listening yet
            }
            Thread.sleep(200);
        }
        throw new AssertionError("replica " + name + " not ready:\n" + Files.readString(log));
    }

    /** SIGKILL: no shutdown hooks, no draining. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor();
    }
}
