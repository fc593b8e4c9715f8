package io.pigeon.api.scaler;

import static io.pigeon.api.scaler.ScalerClient.trigger;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.reliability.Replica;
import io.pigeon.testing.PostgresResource;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Two Pigeon processes over one database: a {@code StreamIsActive} stream open on replica B reports the queue active
 * when the first post to the empty queue is taken by replica A (the post's NOTIFY, sent because B watches the queue),
 * as it does when A holds the stream. Each trial times the post (sent on A) to the report (read from the stream);
 * p50 and p99 are printed for both replicas.
 */
class ScalerAcrossReplicasIT {

    /** Trials per replica: 20 in the suite, more for a measurement (-Dpigeon.it.scaler-trials=100). */
    private static final int TRIALS = Integer.getInteger("pigeon.it.scaler-trials", 20);

    /** The stream's recheck (the shipped default): a report sooner than this came from a notice. */
    private static final long RECHECK_MILLIS = 10_000;

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final String project = "scaler-" + System.nanoTime();

    private void send(Replica replica, String method, String path, String body, int expected) throws Exception {
        HttpResponse<String> answer = replica.send(http, Duration.ofSeconds(10), project, method, path, body);
        assertEquals(expected, answer.statusCode(), method + " " + path + ": " + answer.body());
    }

    /** Waits until some replica's mark on {@code queue} is live: from then on each post to it sends a notice. */
    private void awaitMarked(Map<String, String> config, String queue) throws Exception {
        long deadline =
                System.nanoTime() + Duration.ofSeconds(RECHECK_MILLIS / 1000).toNanos();
        try (Connection connection = DriverManager.getConnection(
                        "jdbc:" + config.get("quarkus.datasource.reactive.url"),
                        config.get("quarkus.datasource.username"),
                        config.get("quarkus.datasource.password"));
                PreparedStatement marked = connection.prepareStatement(
                        "SELECT count(*) FROM queues WHERE project = ? AND name = ? AND wake_until > now()")) {
            marked.setString(1, project);
            marked.setString(2, queue);
            while (true) {
                try (ResultSet rows = marked.executeQuery()) {
                    rows.next();
                    if (rows.getLong(1) > 0) {
                        return;
                    }
                }
                assertTrue(System.nanoTime() < deadline, "the open stream's replica never marked " + queue);
                Thread.sleep(20);
            }
        }
    }

    @Test
    void aPostOnAnotherReplicaIsReportedByTheStreamAtOnce() throws Exception {
        Map<String, String> config = new PostgresResource().start();
        Replica a = Replica.start("scaler-a", config, Replica.FIRST_JIT_TIER);
        Replica b = Replica.start("scaler-b", config, Replica.FIRST_JIT_TIER);
        try {
            a.awaitReady();
            b.awaitReady();
            for (Replica streaming : List.of(b, a)) {
                List<Long> micros = new ArrayList<>();
                try (ScalerClient scaler = new ScalerClient("127.0.0.1", streaming.grpcPort())) {
                    for (int trial = 0; trial < TRIALS; trial++) {
                        String queue = "q-" + streaming.name() + "-" + trial;
                        send(a, "PUT", "/v2/queues/" + queue, "{}", 201);
                        try (ActivityStream stream = scaler.open(trigger("project", project, "queue", queue))) {
                            ActivityStream.Report first = stream.next(RECHECK_MILLIS);
                            assertNotNull(first, "no first report; ended " + stream.ended());
                            assertFalse(first.active());
                            // A consumer scaled to zero: its stream has been open a while when the first post comes,
                            // long enough that its replica's mark on the queue (which makes posts notify) is stored;
                            // on a loaded machine that can take longer than any fixed pause.
                            awaitMarked(config, queue);
                            long posted = System.nanoTime();
                            send(
                                    a,
                                    "POST",
                                    "/v2/queues/" + queue + "/messages",
                                    "{\"messages\": [{\"ttl\": 300, \"body\": " + trial + "}]}",
                                    201);
                            ActivityStream.Report active = stream.next(RECHECK_MILLIS * 2);
                            assertNotNull(active, "no report after the post; ended " + stream.ended());
                            assertTrue(active.active());
                            micros.add((active.at() - posted) / 1000);
                        }
                    }
                }
                Collections.sort(micros);
                long p50 = micros.get(micros.size() / 2);
                long p99 = micros.get((int) Math.ceil(micros.size() * 0.99) - 1);
                System.out.printf(
                        "post on A -> StreamIsActive on %s reported active: p50 %.1f ms, p99 %.1f ms, max %.1f ms"
                                + " (%d trials)%n",
                        streaming == a ? "A (same replica)" : "B (across replicas)",
                        p50 / 1000.0,
                        p99 / 1000.0,
                        micros.get(micros.size() - 1) / 1000.0,
                        micros.size());
                assertTrue(
                        micros.get(micros.size() - 1) < RECHECK_MILLIS * 1000 / 2,
                        "a report came " + micros.get(micros.size() - 1) / 1000
                                + " ms after its post: not by a notice");
            }
        } finally {
            a.kill();
            b.kill();
        }
    }
}
