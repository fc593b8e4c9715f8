package io.pigeon.testing;

import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * What the shared statements of one kind carried so far ({@code pigeon_statement_requests}), read from the test's
 * registry: a test reads both before and after its clients, and the differences say how many requests shared how many
 * statements.
 */
public final class StatementRequests {

    private StatementRequests() {}

    /** The requests the statements of {@code kind} carried. */
    public static double carried(MeterRegistry registry, String kind) {
        return summary(registry, kind).totalAmount();
    }

    /** The statements of {@code kind} run. */
    public static long statements(MeterRegistry registry, String kind) {
        return summary(registry, kind).count();
    }

    private static DistributionSummary summary(MeterRegistry registry, String kind) {
        return registry.get("pigeon.statement.requests").tag("kind", kind).summary();
    }
}
