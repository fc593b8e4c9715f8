package io.pigeon.storage;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import jakarta.validation.constraints.Min;
import java.time.Duration;
import org.hibernate.validator.constraints.time.DurationMax;
import org.hibernate.validator.constraints.time.DurationMin;

/**
 * How requests on one database share statements.
 *
 * <p>How requests on one database share statements (io.pigeon.storage.Coalescer). Its own mapping, so that the
 * feature that reads these keys owns them; the keys are unchanged ({@code pigeon.coalescing.*}, env {@code
 * PIGEON_COALESCING_*}).
 */
@ConfigMapping(prefix = "pigeon.coalescing")
public interface CoalescingSettings {

    /**
     * Whether posts, claims and deletes arriving for a database while its statement of that kind is in flight wait
     * and go together in the next statement, whatever their queues. Off: every request is its own statement.
     */
    @WithDefault("true")
    boolean enabled();

    /** Most messages (posted, asked for by claims, named by deletes) one shared statement carries. */
    @WithDefault("1000")
    @Min(1)
    int maxRows();

    /** Most message-body characters (bytes, for ASCII bodies) one shared post statement carries. */
    @WithDefault("4194304")
    @Min(1)
    int maxBytes();

    /**
     * Statements of one kind on one database in flight at once, per replica: 1 lets the most requests share each
     * statement; more overlap their round trips, with fewer requests in each.
     */
    @WithDefault("1")
    @Min(1)
    int maxInFlight();

    /**
     * How long a request finding its database idle waits for company before its statement starts, when the last
     * statement of its kind there carried more than one request (so others are likely to follow at once); 0 runs it
     * at once, as does a lone client's request whatever this says. Timers below a millisecond are only as fine as
     * the event loop's wake-ups (Java's NIO selector waits in whole milliseconds when no I/O arrives).
     */
    @WithDefault("0s")
    @DurationMin(nanos = 0, message = "must be a duration of 0 or more (e.g. 0.00025s)")
    @DurationMax(millis = 10, message = "must be a duration of at most 10ms (e.g. 0.00025s)")
    Duration window();
}
