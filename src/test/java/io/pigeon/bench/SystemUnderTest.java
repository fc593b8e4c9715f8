package io.pigeon.bench;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The processes the ratio benchmark measures: the PostgreSQL server that {@code PG*} names (its postmaster and every
 * process it started, with those that exited) and Pigeon's JVMs. On a machine that runs other PostgreSQL servers and
 * other Pigeons, the CPU of the system under test must be theirs only, and pinning must not touch anyone else's: so
 * each is found by what it is (the postmaster of the database's data directory, the process listening on a port),
 * not by its name. In pinned mode ({@code bench.pin}) they run on CPU 1 and the load generator (and this JVM) on CPU
 * 0; every run re-pins, so that backends and threads started since follow.
 */
final class SystemUnderTest {

    /** Clock ticks per second of /proc's CPU times (USER_HZ, 100 on Linux). */
    static final double TICKS_PER_SECOND = 100.0;

    private static final String GENERATOR_CPU = "0";
    private static final String SYSTEM_CPU = "1";

    private final Optional<Long> postmaster;
    private final List<ProcessHandle> jvms;
    private final boolean pinned;

    private SystemUnderTest(Optional<Long> postmaster, List<ProcessHandle> jvms, boolean pinned) {
        this.postmaster = postmaster;
        this.jvms = jvms;
        this.pinned = pinned;
    }

    /**
     * The server and the JVMs ({@code jvms}: Pigeon's, and the before build's when there is one), pinned at once when
     * {@code pin}; fails when pinning is asked and cannot be done as promised.
     */
    static SystemUnderTest find(boolean pin, List<Optional<ProcessHandle>> jvms) throws Exception {
        Optional<Long> postmaster = findPostmaster();
        if (pin) {
            checkPinnable();
            if (postmaster.isEmpty()) {
                throw new IllegalStateException("bench.pin: PostgreSQL's postmaster was not found (PG* must name a "
                        + "server on this machine whose data directory or port this user can read)");
            }
            if (jvms.stream().anyMatch(Optional::isEmpty)) {
                throw new IllegalStateException("bench.pin: a Pigeon's process was not found on this machine "
                        + "(name it with bench.pigeon.pid, and bench.before-pid for the before build)");
            }
        }
        SystemUnderTest system = new SystemUnderTest(
                postmaster, jvms.stream().flatMap(Optional::stream).toList(), pin);
        if (pin) {
            // The load generators started from here inherit CPU 0; this JVM's own work between runs stays there too.
            RatioBench.execute(
                    List.of(
                            "taskset",
                            "-a",
                            "-p",
                            "-c",
                            GENERATOR_CPU,
                            String.valueOf(ProcessHandle.current().pid())),
                    Map.of());
            system.pin();
        }
        return system;
    }

    boolean pinned() {
        return pinned;
    }

    /** The command as the load generator runs it: on CPU 0 when pinned. */
    List<String> generator(List<String> command) {
        if (!pinned) {
            return command;
        }
        List<String> onItsCpu = new ArrayList<>(List.of("taskset", "-c", GENERATOR_CPU));
        onItsCpu.addAll(command);
        return onItsCpu;
    }

    /** Every process of the server and every thread of the JVMs onto CPU 1 (again: new ones since). */
    void pin() throws Exception {
        if (!pinned) {
            return;
        }
        setAffinity(SYSTEM_CPU);
    }

    /** After the benchmark: the system under test back on every online CPU. */
    void release() throws Exception {
        if (pinned) {
            setAffinity(
                    Files.readString(Path.of("/sys/devices/system/cpu/online")).trim());
        }
    }

    private void setAffinity(String cpus) throws Exception {
        long pm = postmaster.orElseThrow();
        RatioBench.execute(taskset(cpus, pm), Map.of());
        for (long child : children(pm)) {
            try {
                RatioBench.execute(taskset(cpus, child), Map.of());
            } catch (IllegalStateException exited) {
                // a backend that ended meanwhile; those that start later inherit the postmaster's affinity
            }
        }
        for (ProcessHandle jvm : jvms) {
            // -a: every thread; threads started later inherit their creator's affinity.
            RatioBench.execute(taskset(cpus, jvm.pid()), Map.of());
        }
    }

    private static List<String> taskset(String cpus, long pid) {
        return List.of("taskset", "-a", "-p", "-c", cpus, String.valueOf(pid));
    }

    /** One line saying what runs where, or what is measured. */
    String describe() {
        String server = postmaster
                .map(pm -> "PostgreSQL (postmaster " + pm + " and its "
                        + children(pm).size() + " processes)")
                .orElse("PostgreSQL (every process named postgres on this machine: postmaster not found)");
        StringBuilder jvmList = new StringBuilder();
        for (ProcessHandle jvm : jvms) {
            jvmList.append(String.format(Locale.ROOT, ", Pigeon JVM %d (%d threads)", jvm.pid(), threads(jvm.pid())));
        }
        return pinned
                ? "Pinned: wrk, pgbench and this JVM on CPU " + GENERATOR_CPU + "; on CPU " + SYSTEM_CPU + ": " + server
                        + jvmList + " (re-pinned before every run; released at the end)"
                : "Not pinned (bench.pin=false): measured " + server + jvmList;
    }

    /**
     * CPU ticks so far: the JVM's (all threads), the server's (postmaster, its live processes, and the exited ones it
     * reaped), and this process's reaped children (the load generators of finished runs).
     */
    Cpu sample(Optional<ProcessHandle> jvm) {
        long jvmTicks = jvm.map(p -> ticks(p.pid(), false)).orElse(0L);
        long serverTicks;
        if (postmaster.isPresent()) {
            long pm = postmaster.get();
            serverTicks = 0;
            // Children first: one that exits between the two reads is then counted twice, not lost.
            for (long child : children(pm)) {
                serverTicks += ticks(child, false);
            }
            serverTicks += ticks(pm, true);
        } else {
            serverTicks = everyPostgres();
        }
        long self = ProcessHandle.current().pid();
        return new Cpu(jvmTicks, serverTicks, ticks(self, true) - ticks(self, false));
    }

    /** CPU ticks of one run, split by process. */
    record Cpu(long jvm, long postgres, long generator) {

        Cpu minus(Cpu earlier) {
            return new Cpu(jvm - earlier.jvm, postgres - earlier.postgres, generator - earlier.generator);
        }

        /** Milliseconds of CPU per 1,000 messages, of {@code ticks}. */
        static double perThousand(long ticks, long messages) {
            return messages == 0 ? Double.NaN : ticks * (1000.0 / TICKS_PER_SECOND) * 1000.0 / messages;
        }
    }

    // ---- finding the processes ----

    /** Pigeon's JVM: {@code pid} when given, else the process listening on the URL's port, else none. */
    static Optional<ProcessHandle> findJvm(String pid, String url) {
        if (!pid.isBlank()) {
            return ProcessHandle.of(Long.parseLong(pid.trim()));
        }
        int port = URI.create(url).getPort();
        return listeningOn(port == -1 ? 80 : port).flatMap(ProcessHandle::of);
    }

    /** The postmaster of the server PG* names: from its data directory's postmaster.pid, else by its port. */
    private static Optional<Long> findPostmaster() {
        try {
            String[] settings = RatioBench.execute(
                            List.of(
                                    "psql",
                                    "-Atq",
                                    "-F",
                                    " ",
                                    "-c",
                                    "SELECT current_setting('port'), current_setting('data_directory', true)"),
                            Map.of())
                    .trim()
                    .split(" ", 2);
            if (settings.length == 2 && !settings[1].isBlank()) {
                try {
                    Path pidFile = Path.of(settings[1], "postmaster.pid");
                    return Optional.of(
                            Long.parseLong(Files.readAllLines(pidFile).get(0).trim()));
                } catch (IOException | RuntimeException unreadable) {
                    // not this user's to read: by the port
                }
            }
            return listeningOn(Integer.parseInt(settings[0].trim()));
        } catch (Exception noServer) {
            return Optional.empty();
        }
    }

    private static final Pattern LISTENING =
            Pattern.compile("^\\s*\\d+: [0-9A-F]+:([0-9A-F]{4}) [0-9A-F]+:[0-9A-F]{4} 0A (?:\\S+\\s+){5}(\\d+)");

    /** The process holding the TCP socket that listens on {@code port} (postmasters' children close theirs). */
    static Optional<Long> listeningOn(int port) {
        Set<String> sockets = new HashSet<>();
        for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            try {
                for (String line : Files.readAllLines(Path.of(table))) {
                    Matcher listen = LISTENING.matcher(line);
                    if (listen.find() && Integer.parseInt(listen.group(1), 16) == port) {
                        sockets.add("socket:[" + listen.group(2) + "]");
                    }
                }
            } catch (IOException | RuntimeException absent) {
                // no IPv6 table
            }
        }
        if (sockets.isEmpty()) {
            return Optional.empty();
        }
        try (Stream<Path> processes = Files.list(Path.of("/proc"))) {
            for (Path process : processes
                    .filter(p -> p.getFileName().toString().matches("\\d+"))
                    .toList()) {
                try (Stream<Path> descriptors = Files.list(process.resolve("fd"))) {
                    if (descriptors.anyMatch(fd -> holds(fd, sockets))) {
                        return Optional.of(Long.parseLong(process.getFileName().toString()));
                    }
                } catch (IOException | RuntimeException notOurs) {
                    // ended, or not readable by this user
                }
            }
        } catch (IOException noProc) {
            return Optional.empty();
        }
        return Optional.empty();
    }

    private static boolean holds(Path descriptor, Set<String> sockets) {
        try {
            return sockets.contains(Files.readSymbolicLink(descriptor).toString());
        } catch (IOException | RuntimeException gone) {
            return false;
        }
    }

    private static List<Long> children(long pid) {
        return ProcessHandle.of(pid).stream()
                .flatMap(ProcessHandle::children)
                .map(ProcessHandle::pid)
                .toList();
    }

    private static long threads(long pid) {
        try (Stream<Path> tasks = Files.list(Path.of("/proc", String.valueOf(pid), "task"))) {
            return tasks.count();
        } catch (IOException e) {
            return 0;
        }
    }

    /** Every process named postgres, with the reaped children of those whose parent is not one. */
    private static long everyPostgres() {
        long total = 0;
        try (Stream<Path> processes = Files.list(Path.of("/proc"))) {
            for (Path process : processes
                    .filter(p -> p.getFileName().toString().matches("\\d+"))
                    .toList()) {
                long pid = Long.parseLong(process.getFileName().toString());
                if (comm(pid).equals("postgres")) {
                    boolean postmaster = ProcessHandle.of(pid)
                            .flatMap(ProcessHandle::parent)
                            .map(parent -> !comm(parent.pid()).equals("postgres"))
                            .orElse(true);
                    total += ticks(pid, postmaster);
                }
            }
        } catch (IOException noProc) {
            return 0;
        }
        return total;
    }

    /** utime + stime of the process (all threads), plus its reaped children's when asked (0 once it is gone). */
    static long ticks(long pid, boolean withChildren) {
        try {
            String stat = Files.readString(Path.of("/proc", String.valueOf(pid), "stat"));
            // Fields after the command name, which is in parentheses and may contain spaces.
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            long own = Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
            return withChildren ? own + Long.parseLong(fields[13]) + Long.parseLong(fields[14]) : own;
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    private static String comm(long pid) {
        try {
            return Files.readString(Path.of("/proc", String.valueOf(pid), "comm"))
                    .trim();
        } catch (IOException e) {
            return "";
        }
    }

    /** Pinning needs taskset and two CPUs: a clear refusal otherwise. */
    private static void checkPinnable() throws Exception {
        if (Runtime.getRuntime().availableProcessors() < 2) {
            throw new IllegalStateException("bench.pin needs 2 CPUs (one for the load generator, one for the system "
                    + "under test); this JVM sees " + Runtime.getRuntime().availableProcessors());
        }
        try {
            RatioBench.execute(List.of("taskset", "-c", SYSTEM_CPU, "true"), Map.of());
        } catch (IOException missing) {
            throw new IllegalStateException("bench.pin needs taskset (Debian package util-linux) on the PATH", missing);
        } catch (IllegalStateException refused) {
            throw new IllegalStateException(
                    "bench.pin: CPU " + SYSTEM_CPU + " cannot be used here:\n" + refused.getMessage(), refused);
        }
    }
}
