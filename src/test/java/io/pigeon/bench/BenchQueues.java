package io.pigeon.bench;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Many queues made and removed through Pigeon's HTTP API (v2, as a client would), a few requests at a time: the
 * benchmarks of flat costs set up thousands of queues, and Pigeon's own rows for them must be what its API writes.
 */
final class BenchQueues {

    private static final int PARALLEL = 8;

    private final String url;
    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();

    BenchQueues(String url) {
        this.url = url;
    }

    /** Queues "1" to {@code queues} in each of {@code projects}. */
    void create(List<String> projects, int queues) throws Exception {
        each(projects, queues, "PUT");
    }

    /** Removes queues "1" to {@code queues} of each of {@code projects}, with their messages. */
    void delete(List<String> projects, int queues) throws Exception {
        each(projects, queues, "DELETE");
    }

    /** One request of {@code method} with {@code body} to {@code path} of {@code project}; its answer. */
    HttpResponse<String> send(String method, String project, String path, String body) throws Exception {
        return http.send(
                HttpRequest.newBuilder(URI.create(url + path))
                        .header("X-Project-Id", project)
                        .header("Client-ID", "3381af92-2b9e-11e3-b191-71861300734c")
                        .header("Content-Type", "application/json")
                        .timeout(Duration.ofMinutes(10))
                        .method(
                                method,
                                body == null
                                        ? HttpRequest.BodyPublishers.noBody()
                                        : HttpRequest.BodyPublishers.ofString(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private void each(List<String> projects, int queues, String method) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(PARALLEL);
        try {
            List<Future<Object>> futures = new ArrayList<>();
            for (int part = 0; part < PARALLEL; part++) {
                int first = part;
                futures.add(pool.submit(() -> {
                    for (int i = first; i < projects.size() * queues; i += PARALLEL) {
                        String project = projects.get(i / queues);
                        String queue = String.valueOf(i % queues + 1);
                        HttpResponse<String> answer = send(method, project, "/v2/queues/" + queue, null);
                        if (answer.statusCode() >= 300) {
                            throw new IllegalStateException(method + " queue " + queue + " of " + project + " answered "
                                    + answer.statusCode() + ": " + answer.body());
                        }
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
}
