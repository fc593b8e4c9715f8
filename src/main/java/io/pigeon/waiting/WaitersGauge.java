package io.pigeon.waiting;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.Startup;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * {@code pigeon_waiters}: the waiting claims, pops and receives this replica holds now, to read beside
 * {@code pigeon.claim-wait.max-waiters} (a replica at its bound refuses new waits with 429) on the dashboard.
 */
@Startup
@ApplicationScoped
class WaitersGauge {

    WaitersGauge(QueueWaits waits, MeterRegistry registry) {
        Gauge.builder("pigeon.waiters", waits, QueueWaits::waiting)
                .description("Long-polling claims, pops and receives waiting on this replica")
                .register(registry);
    }
}
