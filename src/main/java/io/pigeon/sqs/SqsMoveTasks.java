package io.pigeon.sqs;

import io.pigeon.message.MessageService;
import io.pigeon.message.QueueStats;
import io.pigeon.queue.QueueName;
import io.pigeon.queue.QueueService;
import io.pigeon.redrive.RedriveService;
import io.pigeon.redrive.RedriveTask;
import io.pigeon.rules.Rejection;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;
import java.util.Optional;

/**
 * SQS's message move tasks (StartMessageMoveTask, ListMessageMoveTasks, CancelMessageMoveTask) on Pigeon's redrive
 * ({@link RedriveService}: one store, one runner, the same bounds): queues named by ARN, of the caller's account only;
 * the source must be a dead-letter queue (some queue's redrive policy names it), as AWS requires; without a
 * destination each message goes back to the queue it was dead-lettered from, as AWS's default. A task is named by an
 * opaque {@code TaskHandle} ({@link MoveTaskHandles}). AWS's bounds: a rate of 1 to 500 messages per second, 1 to 10
 * tasks listed.
 */
@ApplicationScoped
public class SqsMoveTasks {

    static final int MAX_RATE = 500;
    static final int MAX_LISTED = 10;

    /** A task as ListMessageMoveTasks shows it; null fields are left out. */
    public record Listed(
            String handle,
            String status,
            String sourceArn,
            String destinationArn,
            int rate,
            long moved,
            long toMove,
            String failureReason,
            long startedMillis) {}

    private final RedriveService redrive;
    private final QueueService queues;
    private final MessageService messages;
    private final SqsQueueListings listings;
    private final QueueAttributes attributes;
    private final ReceiptHandles handles;

    public SqsMoveTasks(
            RedriveService redrive,
            QueueService queues,
            MessageService messages,
            SqsQueueListings listings,
            QueueAttributes attributes,
            ReceiptHandles handles) {
        this.redrive = redrive;
        this.queues = queues;
        this.messages = messages;
        this.listings = listings;
        this.attributes = attributes;
        this.handles = handles;
    }

    /** Starts a task moving the messages of dead-letter queue {@code sourceArn}; its handle. */
    public Uni<String> start(String project, String account, String sourceArn, String destinationArn, Integer rate) {
        if (rate != null && (rate < 1 || rate > MAX_RATE)) {
            throw SqsRefusal.invalidParameter(
                    "MaxNumberOfMessagesPerSecond",
                    rate.toString(),
                    "must be an integer from 1 to " + MAX_RATE + " (messages per second).");
        }
        QueueName source = queueOf("SourceArn", sourceArn, account);
        QueueName destination = destinationArn == null ? null : queueOf("DestinationArn", destinationArn, account);
        if (source.equals(destination)) {
            throw SqsRefusal.invalidParameter(
                    "DestinationArn", destinationArn, "the destination must be another queue than the source.");
        }
        return existing(project, source)
                .chain(() -> destination == null ? Uni.createFrom().voidItem() : existing(project, destination))
                .chain(() -> listings.deadLetterSources(project, source, 1, null))
                .chain(sources -> {
                    if (sources.names().isEmpty()) {
                        throw new SqsRefusal(
                                SqsRefusal.Reason.UNSUPPORTED_OPERATION,
                                "Source queue must be configured as a Dead Letter Queue: no queue's RedrivePolicy"
                                        + " names " + sourceArn + ".");
                    }
                    return redrive.start(project, source, new RedriveService.Request(destination, rate));
                })
                .onFailure(SqsMoveTasks::runningAlready)
                .transform(running -> new SqsRefusal(
                        SqsRefusal.Reason.UNSUPPORTED_OPERATION,
                        "There is already a task running. Only one active task is allowed for a source queue ARN at"
                                + " a given time."))
                .chain(task -> handles.signer()
                        .map(signer -> MoveTaskHandles.handle(signer, project, source.value(), task.id())));
    }

    /** The {@code maxResults} (1 to 10, default 1) most recent tasks of {@code sourceArn}, newest first. */
    public Uni<List<Listed>> list(String project, String account, String sourceArn, Integer maxResults) {
        if (maxResults != null && (maxResults < 1 || maxResults > MAX_LISTED)) {
            throw SqsRefusal.invalidParameter(
                    "MaxResults", maxResults.toString(), "must be an integer from 1 to " + MAX_LISTED + ".");
        }
        int limit = maxResults == null ? 1 : maxResults;
        QueueName source = queueOf("SourceArn", sourceArn, account);
        return existing(project, source)
                .chain(() -> redrive.list(project, source))
                .chain(tasks -> {
                    List<RedriveTask> shown = tasks.subList(0, Math.min(limit, tasks.size()));
                    boolean running = shown.stream().anyMatch(task -> task.state() == RedriveTask.State.RUNNING);
                    // A running task's messages still to move are those its queue holds now (approximately).
                    return (running
                                    ? messages.stats(project, source)
                                    : Uni.createFrom().item(Optional.<QueueStats>empty()))
                            .chain(stats -> handles.signer().map(signer -> shown.stream()
                                    .map(task -> listed(signer, project, account, task, stats))
                                    .toList()));
                });
    }

    private Listed listed(
            ReceiptHandles.Signer signer,
            String project,
            String account,
            RedriveTask task,
            Optional<QueueStats> stats) {
        boolean running = task.state() == RedriveTask.State.RUNNING;
        long done = task.moved() + task.skipped();
        return new Listed(
                running ? MoveTaskHandles.handle(signer, project, task.queue(), task.id()) : null,
                status(task.state()),
                attributes.arn(account, task.queue()),
                task.target() == null ? null : attributes.arn(account, task.target()),
                task.rate(),
                task.moved(),
                running ? done + stats.map(QueueStats::total).orElse(0L) : done,
                task.reason(),
                task.started().toInstant().toEpochMilli());
    }

    /** Cancels the running task {@code handle} names; how many messages it had moved. */
    public Uni<Long> cancel(String project, String handle) {
        return handles.signer().chain(signer -> {
            MoveTaskHandles.Named named =
                    MoveTaskHandles.open(signer, project, handle).orElseThrow(SqsMoveTasks::taskNotFound);
            String id = named.task().toString();
            return redrive.get(project, named.queue(), id)
                    .onFailure(Rejection.class)
                    .transform(notFound -> taskNotFound())
                    .chain(task -> {
                        if (task.state() != RedriveTask.State.RUNNING) {
                            throw new SqsRefusal(
                                    SqsRefusal.Reason.UNSUPPORTED_OPERATION,
                                    "Only a task in RUNNING status can be cancelled; this one is "
                                            + status(task.state()) + ".");
                        }
                        return redrive.cancel(project, named.queue(), id)
                                .chain(() -> redrive.get(project, named.queue(), id))
                                .map(RedriveTask::moved);
                    });
        });
    }

    /** AWS's names of a task's states. */
    static String status(RedriveTask.State state) {
        return switch (state) {
            case RUNNING -> "RUNNING";
            case DONE -> "COMPLETED";
            case CANCELLED -> "CANCELLED";
            case FAILED -> "FAILED";
        };
    }

    /** The caller's queue an ARN names: malformed is {@code InvalidParameterValue}, another account's not found. */
    private static QueueName queueOf(String parameter, String arn, String account) {
        String[] read = QueueAttributes.readArn(arn);
        if (read == null) {
            throw SqsRefusal.invalidParameter(parameter, arn, "must be the ARN of a queue.");
        }
        if (!read[0].equals(account)) {
            throw resourceNotFound();
        }
        return QueueName.stored(read[1]);
    }

    private Uni<Void> existing(String project, QueueName queue) {
        return queues.exists(project, queue).map(exists -> {
            if (!exists) {
                throw resourceNotFound();
            }
            return null;
        });
    }

    private static boolean runningAlready(Throwable failure) {
        return failure instanceof Rejection rejection && rejection.reason() == Rejection.Reason.CONFLICT;
    }

    private static SqsRefusal resourceNotFound() {
        return new SqsRefusal(
                SqsRefusal.Reason.RESOURCE_NOT_FOUND, "The resource that you requested couldn't be found.");
    }

    private static SqsRefusal taskNotFound() {
        return new SqsRefusal(
                SqsRefusal.Reason.RESOURCE_NOT_FOUND, "The task handle does not name a message move task.");
    }
}
