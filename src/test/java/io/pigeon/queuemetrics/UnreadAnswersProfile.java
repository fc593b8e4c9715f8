package io.pigeon.queuemetrics;

import io.quarkus.test.junit.QuarkusTestProfile;
import java.util.Map;

/**
 * A bound on unread /q/metrics/queues answers (pigeon.queue-metrics.max-unwritten-bytes) of 1 MiB, below one answer of
 * UnreadAnswersTest, so that a single client that does not read reaches it. A profile of its own: the classes of the
 * others read answers that would pass it, and the bound is read once, at start.
 */
public class UnreadAnswersProfile implements QuarkusTestProfile {

    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of("pigeon.queue-metrics.max-unwritten-bytes", "1048576");
    }
}
