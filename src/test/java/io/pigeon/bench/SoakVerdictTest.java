package io.pigeon.bench;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;

/**
 * The soak's verdict is what a half-hour run is read by: a steady run must hold and each kind of leak must fail it,
 * whatever noise the intervals carry. Plain JUnit on made-up intervals: no Pigeon, no database.
 */
class SoakVerdictTest {

    private static final long MB = 1 << 20;

    @Test
    void aSteadyRunWithNoiseHolds() {
        assertTrue(verdict(n -> interval(n, n % 4 == 0 ? 30 : 10, 40 * MB, 5 * MB, 9, "")));
    }

    @Test
    void aHeapThatKeepsGrowingFails() {
        assertFalse(verdict(n -> interval(n, 10, (40 + 2L * n) * MB, 5 * MB, 9, "")));
    }

    @Test
    void aTableThatKeepsGrowingFails() {
        assertFalse(verdict(n -> interval(n, 10, 40 * MB, (5 + n) * MB, 9, "")));
    }

    @Test
    void aLatencyThatEndsTwiceAsHighFails() {
        assertFalse(verdict(n -> interval(n, n > 25 ? 20 : 10, 40 * MB, 5 * MB, 9, "")));
    }

    @Test
    void connectionsNotGivenBackFail() {
        assertFalse(verdict(n -> interval(n, 10, 40 * MB, 5 * MB, 9 + n / 5, "")));
    }

    @Test
    void aFailedIntervalFails() {
        assertFalse(verdict(n -> interval(n, 10, 40 * MB, 5 * MB, 9, n == 15 ? "wrk saw failed requests" : "")));
    }

    private static boolean verdict(IntFunction<SoakBench.Interval> interval) {
        List<SoakBench.Interval> intervals = new ArrayList<>();
        for (int n = 1; n <= 30; n++) {
            intervals.add(interval.apply(n));
        }
        return new SoakVerdict(intervals, 100).print();
    }

    private static SoakBench.Interval interval(
            int number, double p99, long heap, long messagesBytes, int connections, String failure) {
        Map<String, Double> p99s = new LinkedHashMap<>();
        for (String type : List.of("post", "claim", "delete", "get", "delivery lag")) {
            p99s.put(type, p99);
        }
        Map<String, SoakProbe.Table> tables = new LinkedHashMap<>();
        tables.put("messages", new SoakProbe.Table(messagesBytes, 100 * (number % 3), number));
        tables.put("claims", new SoakProbe.Table(MB, 10, number));
        SoakProbe.State state =
                new SoakProbe.State(20, List.of(heap, heap), tables, 3, Map.of("pigeon-1", connections, "pigeon-2", 9));
        SoakHook.Figures side = new SoakHook.Figures(p99, p99, 60L * number, 60L * number, 0, 50, 0, "");
        return new SoakBench.Interval(number, 100, 99, 300, p99s, side, state, failure);
    }
}
