package io.pigeon.reliability;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Debian's PgBouncer in front of one PostgreSQL server, in the pool mode a test names: what {@link PgBouncerIT} runs
 * Pigeon through. It runs as the {@code postgres} OS user (PgBouncer refuses root), on a free port, with its
 * configuration, log and pid file in a temporary directory; every database name goes to the server as the
 * {@code postgres} user ({@code auth_type = any} with a forced user: the test's credentials are not PgBouncer's
 * subject).
 */
final class PgBouncer implements AutoCloseable {

    static final Path BINARY = Path.of("/usr/sbin/pgbouncer");

    /** Why PgBouncer cannot run here, or null when it can (PostgreSQL's own needs: {@link ReplicatedPostgres}). */
    static String missing() {
        if (!Files.isExecutable(BINARY)) {
            return BINARY + " is missing (Debian's pgbouncer; .ci/run installs it)";
        }
        return ReplicatedPostgres.missing();
    }

    private final Path root;
    private final Process process;
    final int port;

    private PgBouncer(Path root, Process process, int port) {
        this.root = root;
        this.process = process;
        this.port = port;
    }

    /**
     * Starts PgBouncer on a free port, pooling {@code mode} ({@code session}, {@code transaction}) with at most
     * {@code poolSize} server connections per database and user, in front of the server on {@code serverPort}.
     */
    static PgBouncer start(int serverPort, String mode, int poolSize) throws Exception {
        Path root = Files.createTempDirectory("pigeon-pgbouncer");
        int port = freePort();
        Path config = root.resolve("pgbouncer.ini");
        Files.writeString(
                config,
                String.join(
                        "\n",
                        "[databases]",
                        "* = host=127.0.0.1 port=" + serverPort + " user=postgres",
                        "[pgbouncer]",
                        "listen_addr = 127.0.0.1",
                        "listen_port = " + port,
                        "unix_socket_dir =",
                        "auth_type = any",
                        "pool_mode = " + mode,
                        "default_pool_size = " + poolSize,
                        "max_client_conn = 500",
                        // The client libraries (pgjdbc, Vert.x) always send it; PgBouncer refuses what it does not
                        // know.
                        "ignore_startup_parameters = extra_float_digits",
                        "logfile = " + root.resolve("pgbouncer.log"),
                        ""));
        new ProcessBuilder("chown", "-R", "postgres:postgres", root.toString())
                .start()
                .waitFor(30, TimeUnit.SECONDS);
        Process process = new ProcessBuilder("runuser", "-u", "postgres", "--", BINARY.toString(), config.toString())
                .redirectErrorStream(true)
                .redirectOutput(root.resolve("stdout.log").toFile())
                .start();
        PgBouncer bouncer = new PgBouncer(root, process, port);
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!bouncer.listening()) {
            if (!process.isAlive() || System.nanoTime() > deadline) {
                String said =
                        Files.exists(root.resolve("stdout.log")) ? Files.readString(root.resolve("stdout.log")) : "";
                bouncer.close();
                throw new AssertionError("PgBouncer did not start listening on " + port + ":\n" + said);
            }
            Thread.sleep(100);
        }
        return bouncer;
    }

    private boolean listening() {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            return true;
        } catch (IOException notYet) {
            return false;
        }
    }

    /** The reactive URL of {@code database} through this PgBouncer. */
    String url(String database) {
        return "postgresql://127.0.0.1:" + port + "/" + database;
    }

    /** A JDBC URL of {@code database} through this PgBouncer. */
    String jdbcUrl(String database) {
        return "jdbc:" + url(database);
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    /** Stops PgBouncer (the runuser process and PgBouncer under it) and removes its directory. */
    @Override
    public void close() throws Exception {
        List<ProcessHandle> under = process.descendants().toList();
        under.forEach(ProcessHandle::destroy);
        process.destroy();
        for (ProcessHandle child : under) {
            child.onExit().get(30, TimeUnit.SECONDS);
        }
        process.waitFor(30, TimeUnit.SECONDS);
        try (var files = Files.walk(root)) {
            files.sorted(Comparator.reverseOrder())
                    .forEach(file -> file.toFile().delete());
        }
    }
}
