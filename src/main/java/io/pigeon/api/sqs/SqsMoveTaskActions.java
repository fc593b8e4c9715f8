package io.pigeon.api.sqs;

import io.pigeon.sqs.SqsMoveTasks;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Map;

/**
 * The message move task actions: StartMessageMoveTask, ListMessageMoveTasks and CancelMessageMoveTask. Each reads
 * its input by AWS's member names, calls {@link SqsMoveTasks} (Pigeon's redrive) and writes AWS's output shape. No
 * rule lives here.
 */
@ApplicationScoped
public class SqsMoveTaskActions implements SqsActionSet {

    private final SqsMoveTasks tasks;

    SqsMoveTaskActions(SqsMoveTasks tasks) {
        this.tasks = tasks;
    }

    @Override
    public void register(Map<String, SqsAction> actions) {
        actions.put("StartMessageMoveTask", this::start);
        actions.put("ListMessageMoveTasks", this::list);
        actions.put("CancelMessageMoveTask", this::cancel);
    }

    private Uni<SqsAnswer> start(SqsCall call) {
        SqsParameters in = call.parameters();
        return tasks.start(
                        call.project(),
                        call.account(),
                        in.required("SourceArn"),
                        in.string("DestinationArn").orElse(null),
                        in.integer("MaxNumberOfMessagesPerSecond").orElse(null))
                .map(handle -> SqsAnswer.result().string("TaskHandle", handle));
    }

    private Uni<SqsAnswer> list(SqsCall call) {
        SqsParameters in = call.parameters();
        return tasks.list(
                        call.project(),
                        call.account(),
                        in.required("SourceArn"),
                        in.integer("MaxResults").orElse(null))
                .map(listed -> SqsAnswer.result()
                        .structures(
                                "Results",
                                "ListMessageMoveTasksResultEntry",
                                listed.stream().map(SqsMoveTaskActions::entry).toList()));
    }

    private static SqsAnswer entry(SqsMoveTasks.Listed task) {
        return SqsAnswer.structure()
                .string("TaskHandle", task.handle())
                .string("Status", task.status())
                .string("SourceArn", task.sourceArn())
                .string("DestinationArn", task.destinationArn())
                .number("MaxNumberOfMessagesPerSecond", task.rate())
                .number("ApproximateNumberOfMessagesMoved", task.moved())
                .number("ApproximateNumberOfMessagesToMove", task.toMove())
                .string("FailureReason", task.failureReason())
                .number("StartedTimestamp", task.startedMillis());
    }

    private Uni<SqsAnswer> cancel(SqsCall call) {
        return tasks.cancel(call.project(), call.parameters().required("TaskHandle"))
                .map(moved -> SqsAnswer.result().number("ApproximateNumberOfMessagesMoved", moved));
    }
}
