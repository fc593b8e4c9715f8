package io.pigeon.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A PostgreSQL primary and a streaming standby on this machine, from Debian's postgresql-15 binaries: what the
 * failover drill kills and promotes. The zonky embedded PostgreSQL of the other tests has no pg_basebackup, so it
 * cannot make a standby. PostgreSQL refuses to run as root, and CI runs as root: every binary runs as the
 * {@code postgres} OS user (runuser), on data directories under a temporary directory that user owns.
 */
final class ReplicatedPostgres implements AutoCloseable {

    static final Path BIN = Path.of("/usr/lib/postgresql/15/bin");

    /** Why the drill cannot run here, or null when it can. */
    static String missing() {
        for (String binary : List.of("initdb", "pg_ctl", "pg_basebackup", "postgres")) {
            if (!Files.isExecutable(BIN.resolve(binary))) {
                return BIN.resolve(binary) + " is missing (Debian's postgresql-15; .ci/run installs it)";
            }
        }
        if (!"root".equals(System.getProperty("user.name"))) {
            return "runs PostgreSQL as the postgres user through runuser, which needs root";
        }
        if (!Files.isExecutable(Path.of("/usr/sbin/runuser")) && !Files.isExecutable(Path.of("/sbin/runuser"))) {
            return "runuser is missing";
        }
        try {
            if (new ProcessBuilder("id", "-u", "postgres").start().waitFor() != 0) {
                return "there is no postgres OS user (Debian's postgresql-15 package makes it)";
            }
        } catch (IOException | InterruptedException e) {
            return "cannot look up the postgres user: " + e;
        }
        return null;
    }

    private final Path root;
    final int primaryPort;
    final int standbyPort;
    private volatile boolean primaryKilled;

    private ReplicatedPostgres(Path root, int primaryPort, int standbyPort) {
        this.root = root;
        this.primaryPort = primaryPort;
        this.standbyPort = standbyPort;
    }

    /**
     * Starts a primary and a standby streaming from it; with {@code synchronous}, the primary's commits wait for the
     * standby to have flushed them (synchronous_commit = on, synchronous_standby_names = '*'), and this returns once the
     * primary reports the standby as synchronous.
     */
    static ReplicatedPostgres start(boolean synchronous) throws Exception {
        Path root = Files.createTempDirectory("pigeon-failover-pg");
        run("chown", "postgres:postgres", root.toString());
        ReplicatedPostgres pair = new ReplicatedPostgres(root, freePort(), freePort());
        try {
            pair.startBoth(synchronous);
        } catch (Exception | AssertionError e) {
            pair.close(); // what did start is stopped, the directories removed
            throw e;
        }
        return pair;
    }

    /** Starts a primary alone, without a standby ({@link #primaryPort}): a plain server for tests that need no failover. */
    static ReplicatedPostgres alone() throws Exception {
        Path root = Files.createTempDirectory("pigeon-pg");
        run("chown", "postgres:postgres", root.toString());
        ReplicatedPostgres server = new ReplicatedPostgres(root, freePort(), freePort());
        try {
            server.initPrimary();
            server.startServer("primary", server.primaryPort, "");
        } catch (Exception | AssertionError e) {
            server.close();
            throw e;
        }
        return server;
    }

    /** Makes a database on the primary. */
    void createDatabase(String name) throws SQLException {
        try (Connection connection = connect(primaryPort)) {
            connection.createStatement().execute("CREATE DATABASE " + name);
        }
    }

    private void initPrimary() throws Exception {
        asPostgres(
                BIN.resolve("initdb").toString(),
                "-D",
                dir("primary"),
                "-U",
                "postgres",
                "--auth=trust",
                "-E",
                "UTF8",
                "--locale=C");
    }

    private void startBoth(boolean synchronous) throws Exception {
        initPrimary();
        startServer("primary", primaryPort, synchronous ? "*" : "");
        asPostgres(
                BIN.resolve("pg_basebackup").toString(),
                "-D",
                dir("standby"),
                "-h",
                "127.0.0.1",
                "-p",
                Integer.toString(primaryPort),
                "-U",
                "postgres",
                "-X",
                "stream",
                "-R");
        // A promoted standby has no standby of its own: it must not wait for one.
        startServer("standby", standbyPort, "");
        String expected = synchronous ? "sync" : "async";
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        String state = "";
        while (!expected.equals(state) && System.nanoTime() < deadline) {
            state = single(primaryPort, "SELECT coalesce(max(sync_state), '') FROM pg_stat_replication");
            Thread.sleep(200);
        }
        assertEquals(expected, state, "the standby's replication state as the primary reports it");
    }

    /** SIGKILL of the primary's postmaster and of every process it started: the machine under it died. */
    void killPrimary() throws Exception {
        long pid = Long.parseLong(Files.readAllLines(Path.of(dir("primary"), "postmaster.pid"))
                .get(0)
                .trim());
        ProcessHandle postmaster = ProcessHandle.of(pid).orElseThrow();
        List<ProcessHandle> children = postmaster.descendants().toList();
        primaryKilled = true;
        postmaster.destroyForcibly();
        children.forEach(ProcessHandle::destroyForcibly);
        postmaster.onExit().get(30, TimeUnit.SECONDS);
        for (ProcessHandle child : children) {
            child.onExit().get(30, TimeUnit.SECONDS);
        }
    }

    /** Promotes the standby and waits until it takes writes. */
    void promoteStandby() throws Exception {
        asPostgres(BIN.resolve("pg_ctl").toString(), "promote", "-w", "-t", "120", "-D", dir("standby"));
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (!"f"
                .equals(single(standbyPort, "SELECT pg_is_in_recovery()::text").substring(0, 1))) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the standby is still in recovery 120 s after pg_ctl promote");
            }
            Thread.sleep(200);
        }
    }

    /** A JDBC connection straight to the server on {@code port} (not through the proxy). */
    static Connection connect(int port) throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port + "/postgres", "postgres", "");
    }

    private String single(int port, String sql) throws SQLException {
        try (Connection connection = connect(port);
                ResultSet rows = connection.createStatement().executeQuery(sql)) {
            rows.next();
            return rows.getString(1);
        }
    }

    private void startServer(String name, int port, String synchronousStandbys) throws Exception {
        String options = "-c port=" + port + " -c listen_addresses=127.0.0.1 -c unix_socket_directories=" + root
                + " -c max_connections=200 -c synchronous_commit=on -c synchronous_standby_names='"
                + synchronousStandbys + "' -c wal_level=replica -c fsync=on";
        asPostgres(
                BIN.resolve("pg_ctl").toString(),
                "start",
                "-w",
                "-t",
                "120",
                "-D",
                dir(name),
                "-l",
                root.resolve(name + ".log").toString(),
                "-o",
                options);
    }

    private String dir(String name) {
        return root.resolve(name).toString();
    }

    private void asPostgres(String... command) throws Exception {
        List<String> full = new ArrayList<>(List.of("runuser", "-u", "postgres", "--"));
        full.addAll(List.of(command));
        run(full.toArray(String[]::new));
    }

    private static void run(String... command) throws Exception {
        Path output = Files.createTempFile("pigeon-failover-cmd", ".log");
        Process process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(output.toFile())
                .start();
        boolean ended = process.waitFor(180, TimeUnit.SECONDS);
        String said = Files.readString(output);
        Files.deleteIfExists(output);
        if (!ended || process.exitValue() != 0) {
            process.destroyForcibly();
            throw new AssertionError(String.join(" ", command) + (ended ? " failed:\n" : " hung:\n") + said);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    /** Stops whichever servers still run (immediately) and removes the data directories. */
    @Override
    public void close() throws Exception {
        for (String name : List.of("primary", "standby")) {
            boolean killed = name.equals("primary") && primaryKilled;
            if (!killed && Files.exists(Path.of(dir(name), "postmaster.pid"))) {
                try {
                    asPostgres(BIN.resolve("pg_ctl").toString(), "stop", "-m", "immediate", "-w", "-D", dir(name));
                } catch (AssertionError e) {
                    System.out.println("could not stop the " + name + ": " + e.getMessage());
                }
            }
        }
        try (var files = Files.walk(root)) {
            files.sorted(Comparator.reverseOrder())
                    .forEach(file -> file.toFile().delete());
        }
    }
}
