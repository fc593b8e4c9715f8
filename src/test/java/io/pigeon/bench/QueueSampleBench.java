package io.pigeon.bench;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the per-queue metrics cost (issue 30), against a running Pigeon whose database {@code PG*} names (through
 * {@code psql}): {@code bench.sample-queues} queues (1,000) of one new project are filled, in SQL, with
 * {@code bench.sample-messages} messages in all (1,000,000), posted to the queues in turn (so a queue's messages lie
 * spread over the whole table, as a live queue's do), a tenth of them claimed and a twentieth delayed. Then the sample
 * statement, exactly as the catalogue ({@code docs/sql/statements.sql}) holds it and with the session settings Pigeon's
 * connections have, runs {@code bench.sample-runs} times (5) under {@code EXPLAIN (ANALYZE, BUFFERS)}, with Pigeon's
 * own lock key (a run that finds Pigeon's sampler holding it is tried again) and a due time of 0, so that it samples
 * each time; and
 * {@code /q/metrics/queues?project=} of that project is scraped 20 times. Prints the statement's time and buffers, and
 * the scrape's time and size. The project's queues and messages are deleted at the end.
 */
final class QueueSampleBench {

    private static final Path CATALOGUE = Path.of("docs/sql/statements.sql");
    /** The lock key of the sample ({@code OneReplicaAtATime.QUEUE_SAMPLE}): one sample at a time, Pigeon's or this. */
    private static final long SAMPLE_LOCK = 0x70696765_6f6e7173L;

    private QueueSampleBench() {}

    static void run(String url) throws Exception {
        int queues = Integer.getInteger("bench.sample-queues", 1000);
        int messages = Integer.getInteger("bench.sample-messages", 1_000_000);
        int runs = Integer.getInteger("bench.sample-runs", 5);
        int exactLimit = Integer.getInteger("bench.sample-exact-limit", 10_000);
        String project = "bench-sample-" + UUID.randomUUID();
        System.out.printf(
                Locale.ROOT,
                "Per-queue metrics: %,d queues of project %s holding %,d messages in all (10 %% claimed, 5 %% delayed)%n",
                queues,
                project,
                messages);
        long started = System.nanoTime();
        psql(
                """
                INSERT INTO queues (project, name) SELECT '%1$s', 'q' || g FROM generate_series(1, %2$d) g;
                INSERT INTO messages (queue_id, client_id, ttl, body, expires_at, claim_id, claim_expires_at, visible_at,
                                      claim_count)
                SELECT q.first + g %% %2$d, gen_random_uuid(), 3600,
                       '{"event": "bench", "n": ' || g || ', "pad": "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}',
                       now() + interval '1 hour',
                       CASE WHEN g %% 10 = 0 THEN gen_random_uuid() END,
                       CASE WHEN g %% 10 = 0 THEN now() + interval '30 minutes' END,
                       CASE WHEN g %% 20 = 1 THEN now() + interval '10 minutes' END,
                       CASE WHEN g %% 10 = 0 THEN 1 ELSE 0 END
                FROM generate_series(1, %3$d) g,
                     (SELECT min(id) AS first FROM queues WHERE project = '%1$s') q
                ORDER BY g;
                VACUUM (ANALYZE) messages;
                VACUUM (ANALYZE) queues;
                """
                        .formatted(project, queues, messages));
        System.out.printf(Locale.ROOT, "filled in %.0f s%n", (System.nanoTime() - started) / 1e9);
        System.out.println(psql("SELECT 'messages table: ' || pg_size_pretty(pg_relation_size('messages')) || ', '"
                + " || (SELECT count(*) FROM messages) || ' rows in the database, '"
                + " || (SELECT count(*) FROM queues) || ' queues'"));
        try {
            String sample = statement("QueueMetricsStore.SAMPLE");
            List<Double> millis = new ArrayList<>();
            String buffers = "";
            for (int run = 0, tries = 0; run < runs && tries < runs * 10; tries++) {
                String plan = psql(
                        """
                        SET jit = off;
                        SET enable_bitmapscan = off;
                        SET plan_cache_mode = force_generic_plan;
                        PREPARE sample (bigint, bigint, int) AS %s;
                        EXPLAIN (ANALYZE, BUFFERS) EXECUTE sample(%d, 0, %d);
                        """
                                .formatted(sample, SAMPLE_LOCK, exactLimit));
                if (plan.lines()
                        .anyMatch(line ->
                                line.contains("Index Scan using messages_pkey") && line.contains("never executed"))) {
                    Thread.sleep(500); // Pigeon's own sampler held the lock: nothing was sampled
                    continue;
                }
                run++;
                Matcher time = Pattern.compile("Execution Time: ([0-9.]+) ms").matcher(plan);
                Matcher shared =
                        Pattern.compile("(?m)^\\s*Buffers: (shared [^\\n]*)").matcher(plan);
                if (!time.find()) {
                    throw new IllegalStateException("no execution time in:\n" + plan);
                }
                millis.add(Double.parseDouble(time.group(1)));
                buffers = shared.find() ? shared.group(1) : "?";
            }
            Collections.sort(millis);
            System.out.printf(
                    Locale.ROOT,
                    "one sample of the database (every queue in it): median %.0f ms, min %.0f, max %.0f (%d runs);"
                            + " last run's buffers: %s%n",
                    millis.get(millis.size() / 2),
                    millis.get(0),
                    millis.get(millis.size() - 1),
                    millis.size(),
                    buffers);

            HttpClient http = HttpClient.newHttpClient();
            scrape(http, url + "/q/metrics/queues?project=" + project, "?project= (" + queues + " queues)");
            scrape(http, url + "/q/metrics/queues", "unfiltered (every queue of the database)");
        } finally {
            psql(
                    """
                    DELETE FROM messages WHERE queue_id IN (SELECT id FROM queues WHERE project = '%1$s');
                    DELETE FROM queues WHERE project = '%1$s';
                    """
                            .formatted(project));
        }
    }

    /** 25 scrapes of {@code address}, the first 5 to warm up: prints the time of the others and the answer's size. */
    private static void scrape(HttpClient http, String address, String what) throws Exception {
        HttpRequest scrape = HttpRequest.newBuilder(URI.create(address))
                .timeout(Duration.ofSeconds(30))
                .build();
        List<Double> scrapeMillis = new ArrayList<>();
        String body = "";
        for (int i = 0; i < 25; i++) {
            long at = System.nanoTime();
            HttpResponse<String> answer = http.send(scrape, HttpResponse.BodyHandlers.ofString());
            if (answer.statusCode() != 200) {
                throw new IllegalStateException("scrape answered " + answer.statusCode() + ": " + answer.body());
            }
            if (i >= 5) {
                scrapeMillis.add((System.nanoTime() - at) / 1e6);
            }
            body = answer.body();
        }
        Collections.sort(scrapeMillis);
        long series = body.lines().filter(line -> !line.startsWith("#")).count();
        System.out.printf(
                Locale.ROOT,
                "one scrape of /q/metrics/queues %s: median %.1f ms, max %.1f ms (20 scrapes); %,d series, %,d bytes%n",
                what,
                scrapeMillis.get(scrapeMillis.size() / 2),
                scrapeMillis.get(scrapeMillis.size() - 1),
                series,
                body.length());
    }

    /** A statement of the catalogue, by name, as the code sends it. */
    static String statement(String name) throws Exception {
        String catalogue = Files.readString(CATALOGUE);
        int at = catalogue.indexOf("-- name: " + name + "\n");
        if (at < 0) {
            throw new IllegalStateException(name + " is not in " + CATALOGUE);
        }
        int start = catalogue.indexOf('\n', at) + 1;
        int end = catalogue.indexOf(";\n", start);
        return catalogue.substring(start, end);
    }

    /** Runs the statements as a script (each in its own transaction, so VACUUM may be one of them). */
    private static String psql(String sql) throws Exception {
        Path script = Files.createTempFile("pigeon-sample-bench", ".sql");
        try {
            Files.writeString(script, sql);
            return RatioBench.execute(
                    List.of("psql", "-X", "-At", "-v", "ON_ERROR_STOP=1", "-f", script.toString()), Map.of());
        } finally {
            Files.deleteIfExists(script);
        }
    }
}
