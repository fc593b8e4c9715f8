package io.pigeon.queuemetrics;

import io.pigeon.observability.QueueMetricsSettings;
import io.pigeon.rules.Rejection;
import io.smallrye.mutiny.Multi;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The bytes of /q/metrics/queues answers this replica holds until they are written, at most
 * {@code pigeon.queue-metrics.max-unwritten-bytes}. An answer is written in chunks of {@value #CHUNK} bytes, the next
 * one only once the connection took the last; it holds its place from when it is ready until its last chunk is written
 * or the connection is gone. Answers given whole used to be copied into Netty's direct memory at once and stay there
 * for as long as their client did not read: 60 clients that read 40 bytes of a 4.2 MB answer pinned 520 MB and every
 * later scrape failed with an OutOfMemoryError (500). Now such a client pins one chunk of direct memory, its answer
 * stays on the heap within the bound, and a scrape past the bound is refused (503).
 */
@ApplicationScoped
public class UnwrittenAnswers {

    /** Bytes written at a time: the most one client that does not read pins in direct memory. */
    static final int CHUNK = 64 * 1024;

    private final long maxBytes;
    private final AtomicLong held = new AtomicLong();

    public UnwrittenAnswers(QueueMetricsSettings queueMetricsSettings) {
        this.maxBytes = queueMetricsSettings.maxUnwrittenBytes();
    }

    /**
     * The answer's chunks, to be written one after another as the connection takes them; refused (503) when it would
     * take the bytes held past the bound. One answer alone always goes, however large, so that the bound cannot stop
     * every scrape.
     */
    public Multi<byte[]> chunks(byte[] answer) {
        return Multi.createFrom().deferred(() -> {
            long size = answer.length;
            long before = held.getAndAdd(size);
            if (before > 0 && before + size > maxBytes) {
                held.addAndGet(-size);
                return Multi.createFrom()
                        .failure(new Rejection(
                                Rejection.Reason.UNAVAILABLE,
                                "This replica holds " + before + " bytes of /q/metrics/queues answers that their"
                                        + " clients have not read yet, and this answer of " + size
                                        + " bytes would pass its bound (pigeon.queue-metrics.max-unwritten-bytes, "
                                        + maxBytes + "); try again shortly."));
            }
            AtomicBoolean released = new AtomicBoolean();
            int count = Math.max(1, (answer.length + CHUNK - 1) / CHUNK);
            return Multi.createFrom()
                    .range(0, count)
                    .map(i -> Arrays.copyOfRange(answer, i * CHUNK, Math.min(answer.length, (i + 1) * CHUNK)))
                    // Written, failed, or cancelled because the connection closed: the place is free again.
                    .onTermination()
                    .invoke(() -> {
                        if (released.compareAndSet(false, true)) {
                            held.addAndGet(-size);
                        }
                    });
        });
    }

    /** Bytes of answers held now (for tests). */
    public long held() {
        return held.get();
    }
}
