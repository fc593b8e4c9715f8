package io.pigeon.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Issue 41's goal as a check of a pinned ratio run ({@code -Dbench.goal=per-core}): Pigeon over HTTP moves at least
 * PGMQ's messages per second in every cell, spends no more CPU per message than PGMQ at 4 clients and more, and writes
 * no more WAL per message. The run fails listing every cell that misses, so "not met" is a result anyone can rerun.
 */
final class PerCoreGoal {

    /** One cell's medians. */
    record Cell(
            String layout,
            int clients,
            double pgmqRate,
            double pigeonRate,
            double pgmqCpu,
            double pigeonCpu,
            double pgmqWal,
            double pigeonWal) {}

    private final List<Cell> cells = new ArrayList<>();

    void add(Cell cell) {
        cells.add(cell);
    }

    /** What misses the goal, one line per miss; empty when every cell meets it. */
    List<String> misses() {
        List<String> misses = new ArrayList<>();
        for (Cell cell : cells) {
            String where = cell.layout() + ", " + cell.clients() + " client(s): ";
            if (cell.pigeonRate() < cell.pgmqRate()) {
                misses.add(where + format("msg/s %.0f < PGMQ's %.0f", cell.pigeonRate(), cell.pgmqRate()));
            }
            if (cell.clients() >= 4 && cell.pigeonCpu() > cell.pgmqCpu()) {
                misses.add(where
                        + format("CPU ms per 1,000 messages %.0f > PGMQ's %.0f", cell.pigeonCpu(), cell.pgmqCpu()));
            }
            if (cell.pigeonWal() > cell.pgmqWal()) {
                misses.add(
                        where + format("WAL bytes per message %.0f > PGMQ's %.0f", cell.pigeonWal(), cell.pgmqWal()));
            }
        }
        return misses;
    }

    /** Fails the run when {@code bench.goal} is {@code per-core} and a cell misses. */
    void check() {
        if (!"per-core".equals(System.getProperty("bench.goal", ""))) {
            return;
        }
        List<String> misses = misses();
        if (cells.isEmpty()) {
            throw new AssertionError("bench.goal=per-core: no cell with both PGMQ and Pigeon ran");
        }
        if (!misses.isEmpty()) {
            throw new AssertionError(
                    "bench.goal=per-core not met in " + misses.size() + " place(s):\n  " + String.join("\n  ", misses));
        }
        System.out.println("bench.goal=per-core met in all " + cells.size() + " cells");
    }

    private static String format(String pattern, double... values) {
        Object[] boxed = new Object[values.length];
        for (int i = 0; i < values.length; i++) {
            boxed[i] = values[i];
        }
        return String.format(Locale.ROOT, pattern, boxed);
    }
}
