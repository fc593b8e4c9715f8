package io.pigeon.accesskeys;

import io.smallrye.mutiny.Uni;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * The live keys this replica read lately, so that a client's stream of signed requests reads its key from the
 * database once per {@code ttl}, not once per request (SQS clients send several requests per batch of messages). Only
 * keys found are kept: an unknown id is read every time (a malformed one never reaches the database). A revocation is
 * seen at once by the replica that made it ({@link #forget}) and within {@code ttl} by the others. At most
 * {@value #MAX_ENTRIES} keys; past it the cache starts again empty, which costs a read per key and nothing else.
 */
final class LiveKeyCache {

    static final int MAX_ENTRIES = 10_000;

    private record Entry(KeySecrets.KeySecret key, long until) {}

    private final Map<String, Entry> entries = new ConcurrentHashMap<>();
    private final long ttlNanos;

    LiveKeyCache(Duration ttl) {
        this.ttlNanos = ttl.toNanos();
    }

    /** The key {@code accessKeyId}, from the cache while fresh, else from {@code load} (and kept if found). */
    Uni<Optional<KeySecrets.KeySecret>> find(
            String accessKeyId, Function<String, Uni<Optional<KeySecrets.KeySecret>>> load) {
        if (ttlNanos == 0) {
            return load.apply(accessKeyId);
        }
        long now = System.nanoTime();
        Entry entry = entries.get(accessKeyId);
        if (entry != null && now - entry.until() < 0) {
            return Uni.createFrom().item(Optional.of(entry.key()));
        }
        return load.apply(accessKeyId).invoke(found -> {
            if (found.isEmpty()) {
                entries.remove(accessKeyId);
                return;
            }
            if (entries.size() >= MAX_ENTRIES) {
                entries.clear();
            }
            entries.put(accessKeyId, new Entry(found.get(), System.nanoTime() + ttlNanos));
        });
    }

    /** Drops {@code accessKeyId}: the next request it signs reads the database. */
    void forget(String accessKeyId) {
        entries.remove(accessKeyId);
    }
}
