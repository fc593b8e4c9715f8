package io.pigeon.api.view;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.pigeon.message.QueueStats;
import io.quarkus.runtime.annotations.RegisterForReflection;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.function.LongFunction;

/**
 * Queue statistics on the wire, the same in v1 and v2: {@code {"messages": {"claimed", "free", "total",
 * "oldest", "newest"}}}, where oldest and newest ({@code href}, {@code age}, {@code created} in ISO 8601 UTC)
 * appear only when the queue holds messages. {@code delayed} (how many of the free messages are not visible yet) is
 * Pigeon's, shown only when asked for: Zaqar's response schemas of every version forbid any other key in
 * {@code messages}.
 */
@RegisterForReflection
public record StatsView(Counts messages) {

    private static final DateTimeFormatter ISO_SECONDS = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss'Z'");

    @RegisterForReflection
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Counts(long claimed, long free, long total, Long delayed, Edge oldest, Edge newest) {}

    @RegisterForReflection
    public record Edge(String href, long age, String created) {}

    /** The view of {@code stats}, naming messages with {@code messageHref}: Zaqar's keys only. */
    public static StatsView of(QueueStats stats, LongFunction<String> messageHref) {
        return of(stats, messageHref, false);
    }

    /** The view of {@code stats}, with Pigeon's {@code delayed} when {@code withDelayed}. */
    public static StatsView of(QueueStats stats, LongFunction<String> messageHref, boolean withDelayed) {
        return new StatsView(new Counts(
                stats.claimed(),
                stats.free(),
                stats.total(),
                withDelayed ? stats.delayed() : null,
                edge(stats.oldest(), messageHref),
                edge(stats.newest(), messageHref)));
    }

    public static StatsView empty() {
        return empty(false);
    }

    /** The stats of a queue without messages, with Pigeon's {@code delayed} when {@code withDelayed}. */
    public static StatsView empty(boolean withDelayed) {
        return new StatsView(new Counts(0, 0, 0, withDelayed ? 0L : null, null, null));
    }

    private static Edge edge(QueueStats.Edge edge, LongFunction<String> messageHref) {
        if (edge == null) {
            return null;
        }
        String created = edge.created()
                .withOffsetSameInstant(ZoneOffset.UTC)
                .truncatedTo(ChronoUnit.SECONDS)
                .format(ISO_SECONDS);
        return new Edge(messageHref.apply(edge.id()), edge.age(), created);
    }
}
