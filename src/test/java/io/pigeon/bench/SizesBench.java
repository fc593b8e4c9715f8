package io.pigeon.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Megabytes per second through the full cycle (post n, claim n, delete those by ids; a queue per client) at each body
 * size of {@code bench.sizes} (1024,65536,262144 bytes, each body as stored: Pigeon's compact JSON), with
 * {@code bench.sizes.batches} messages per post and claim (10,3,1), Pigeon over HTTP through {@code wrk} beside PGMQ
 * 1.5.1 over SQL through {@code pgbench} (its send_batch, read and delete, on the peers' database of
 * {@link PeerCycles}). The batches keep a post within Pigeon's default post bound (256 KiB a request,
 * {@code pigeon.max-messages-post-size}) but for one body of 256 KiB, which with its envelope is over it: run Pigeon
 * with {@code PIGEON_MAX_MESSAGES_POST_SIZE=300000} for that size. Bodies hold a pad of random hex digits (TOAST
 * compresses them about as it would real data, not to nothing). PGMQ's bodies are built once in SQL into a table
 * and read from it by each post (pgbench's {@code -D} values cannot be that long), so its server does one index
 * probe more per post than a client sending the body would cost it.
 */
final class SizesBench {

    /** The body as Pigeon stores it, around the pad: {"event":"bench","pad":"..."}. */
    private static final int ENVELOPE = 26;

    private static final String PGMQ_CYCLE =
            """
            \\set queue :client_id + 1
            SELECT pgmq.send_batch('q' || :queue, ARRAY(SELECT b.body FROM bench_bodies b, generate_series(1, :batch) WHERE b.size = :size));
            SELECT coalesce(array_agg(msg_id), '{}') AS ids FROM pgmq.read('q' || :queue, 60, :batch)
            \\gset
            SELECT pgmq.delete('q' || :queue, :ids::bigint[]);
            """;

    private SizesBench() {}

    static void run(String url, int seconds, int[] clientCounts) throws Exception {
        int[] sizes = numbers("bench.sizes", "1024,65536,262144");
        int[] batches = numbers("bench.sizes.batches", "10,3,1");
        if (sizes.length != batches.length) {
            throw new IllegalArgumentException("bench.sizes and bench.sizes.batches must be as long");
        }
        Optional<ProcessHandle> pigeon = CycleRun.pigeon(url);
        PeerCycles peers = PeerCycles.prepare(Arrays.stream(clientCounts).max().orElse(16));
        Map<String, String> peerDatabase = Map.of("PGDATABASE", peers.database());
        RatioBench.execute(
                List.of(
                        "psql",
                        "-q",
                        "-v",
                        "ON_ERROR_STOP=1",
                        "-c",
                        "DROP TABLE IF EXISTS bench_bodies; CREATE TABLE bench_bodies (size int PRIMARY KEY, body jsonb NOT NULL)"),
                peerDatabase);
        for (int size : sizes) {
            RatioBench.execute(
                    List.of(
                            "psql",
                            "-q",
                            "-v",
                            "ON_ERROR_STOP=1",
                            "-c",
                            String.format(
                                    Locale.ROOT,
                                    "INSERT INTO bench_bodies SELECT %1$d, jsonb_build_object('event', 'bench', 'pad',"
                                            + " left(string_agg(md5(i::text), '' ORDER BY i), %2$d))"
                                            + " FROM generate_series(1, %2$d / 32 + 1) i",
                                    size,
                                    Math.max(0, size - ENVELOPE))),
                    peerDatabase);
        }
        System.out.printf(
                Locale.ROOT,
                "Message sizes: full cycle (post n, claim n, delete n by ids), a queue per client, %d s per run; Pigeon v2"
                        + " over HTTP (wrk) beside PGMQ over SQL (pgbench)%n",
                seconds);
        System.out.printf(
                "%8s %5s %7s %10s %9s %10s %9s %6s  %-44s %s%n",
                "body",
                "batch",
                "clients",
                "Pigeon/s",
                "MiB/s",
                "PGMQ/s",
                "MiB/s",
                "ratio",
                "Pigeon p50/p99 ms",
                "CPU ms per 1,000 msg: Pigeon (pigeon + postgres + wrk) | PGMQ (postgres + pgbench)");
        for (int i = 0; i < sizes.length; i++) {
            for (int clients : clientCounts) {
                settle(peers);
                String project = "bench-sizes-" + UUID.randomUUID();
                CycleRun.Result http = CycleRun.run(
                        url,
                        clients,
                        seconds,
                        Map.of(
                                "BENCH_API",
                                "v2",
                                "BENCH_LAYOUT",
                                "per-client",
                                "BENCH_PROJECT",
                                project,
                                "BENCH_BATCH",
                                String.valueOf(batches[i]),
                                "BENCH_BODY_BYTES",
                                String.valueOf(sizes[i])),
                        pigeon);
                new BenchQueues(url).delete(List.of(project), clients);
                settle(peers);
                peers.empty();
                SystemUnderTest system = CycleRun.system(pigeon);
                SystemUnderTest.Cpu before = system.sample(pigeon);
                double pgmqTransactions = pgbench(sizes[i], batches[i], clients, seconds, peerDatabase);
                SystemUnderTest.Cpu pgmqCpu = system.sample(pigeon).minus(before);
                double pgmq = pgmqTransactions * batches[i];
                double mib = sizes[i] / 1048576.0;
                System.out.printf(
                        Locale.ROOT,
                        "%8d %5d %7d %10.0f %9.1f %10.0f %9.1f %6.2f  %-44s %s | %s%n",
                        sizes[i],
                        batches[i],
                        clients,
                        http.messagesPerSecond(),
                        http.messagesPerSecond() * mib,
                        pgmq,
                        pgmq * mib,
                        http.messagesPerSecond() / pgmq,
                        http.p50p99(),
                        http.cpuPerThousand(),
                        CycleRun.perThousand(pgmqCpu, Math.round(pgmq * seconds), false));
            }
        }
    }

    /** Transactions (cycles) per second of PGMQ's cycle with {@code clients} clients. */
    private static double pgbench(int size, int batch, int clients, int seconds, Map<String, String> database)
            throws Exception {
        Path script = Files.createTempFile("pigeon-pgmq-sizes", ".sql");
        try {
            Files.writeString(script, PGMQ_CYCLE);
            String output = RatioBench.execute(
                    List.of(
                            "pgbench",
                            "-n",
                            "-M",
                            "prepared",
                            "-c",
                            String.valueOf(clients),
                            "-j",
                            String.valueOf(clients),
                            "-T",
                            String.valueOf(seconds),
                            "-f",
                            script.toString(),
                            "-D",
                            "size=" + size,
                            "-D",
                            "batch=" + batch),
                    database);
            Matcher tps = Pattern.compile("tps = ([0-9.]+) \\(without initial connection time\\)")
                    .matcher(output);
            if (!tps.find() || output.contains("ERROR")) {
                throw new IllegalStateException("pgbench failed:\n" + output);
            }
            return Double.parseDouble(tps.group(1));
        } finally {
            Files.deleteIfExists(script);
        }
    }

    /** VACUUM of Pigeon's hot tables and the peers', then a second's rest, as the ratio benchmark does between runs. */
    private static void settle(PeerCycles peers) throws Exception {
        BenchDatabase.query("VACUUM messages, claims, queues");
        peers.vacuum();
        Thread.sleep(1000);
    }

    private static int[] numbers(String property, String defaults) {
        return Arrays.stream(System.getProperty(property, defaults).split(","))
                .map(String::trim)
                .mapToInt(Integer::parseInt)
                .toArray();
    }
}
