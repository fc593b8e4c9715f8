package io.pigeon.api.v2;

import io.pigeon.api.view.Hrefs;
import io.pigeon.queue.QueueName;
import io.pigeon.redrive.RedriveTask;
import io.quarkus.runtime.annotations.RegisterForReflection;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.List;

/** The documents of redrive tasks (Pigeon's extension): one task, and a queue's list of them. */
public final class RedriveViews {

    private static final DateTimeFormatter ISO_SECONDS = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss'Z'");

    private RedriveViews() {}

    /**
     * A task: {@code target} null when each message goes back to the queue it was dead-lettered from; {@code finished}
     * null while it runs; {@code reason} null unless it failed. Times in ISO 8601 UTC, as a queue's stats give them.
     */
    @RegisterForReflection
    public record Task(
            String id,
            String href,
            String queue,
            String target,
            int rate,
            String state,
            long moved,
            long skipped,
            String started,
            String finished,
            String reason) {}

    /** A queue's tasks, newest first. */
    @RegisterForReflection
    public record Tasks(List<Task> tasks) {}

    static Task of(QueueName queue, RedriveTask task) {
        return new Task(
                task.id().toString(),
                Hrefs.redriveTask(queue, task.id()),
                queue.name(),
                task.target(),
                task.rate(),
                task.state().text(),
                task.moved(),
                task.skipped(),
                time(task.started()),
                time(task.finished()),
                task.reason());
    }

    static Tasks of(QueueName queue, List<RedriveTask> tasks) {
        return new Tasks(tasks.stream().map(task -> of(queue, task)).toList());
    }

    private static String time(OffsetDateTime time) {
        return time == null
                ? null
                : time.withOffsetSameInstant(ZoneOffset.UTC)
                        .truncatedTo(ChronoUnit.SECONDS)
                        .format(ISO_SECONDS);
    }
}
