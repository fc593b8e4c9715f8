package io.pigeon.accesskeys;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smallrye.mutiny.Uni;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * A replica reads a live key once per time to live, reads it again after a revocation it made itself, never keeps an
 * unknown key, and with a time to live of 0 reads every time.
 */
class LiveKeyCacheTest {

    private static final KeySecrets.KeySecret KEY = new KeySecrets.KeySecret("p", "s");

    private final AtomicInteger reads = new AtomicInteger();

    private Function<String, Uni<Optional<KeySecrets.KeySecret>>> database(boolean found) {
        return id -> {
            reads.incrementAndGet();
            return Uni.createFrom().item(found ? Optional.of(KEY) : Optional.empty());
        };
    }

    @Test
    void aLiveKeyIsReadOnceUntilForgotten() {
        LiveKeyCache cache = new LiveKeyCache(Duration.ofMinutes(1));
        for (int i = 0; i < 5; i++) {
            assertEquals(
                    Optional.of(KEY), cache.find("k", database(true)).await().indefinitely());
        }
        assertEquals(1, reads.get());
        cache.forget("k");
        assertTrue(cache.find("k", database(false)).await().indefinitely().isEmpty());
        assertTrue(cache.find("k", database(false)).await().indefinitely().isEmpty());
        assertEquals(3, reads.get());
    }

    @Test
    void noTimeToLiveReadsEveryTime() {
        LiveKeyCache cache = new LiveKeyCache(Duration.ZERO);
        for (int i = 0; i < 3; i++) {
            cache.find("k", database(true)).await().indefinitely();
        }
        assertEquals(3, reads.get());
    }
}
