package io.pigeon.api.sqs;

import io.pigeon.queue.QueueName;
import io.pigeon.sqs.BatchEntry;
import io.pigeon.sqs.OutgoingMessage;
import io.pigeon.sqs.SqsMessages;
import io.pigeon.sqs.SqsReceipts;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The batch actions: SendMessageBatch, DeleteMessageBatch and ChangeMessageVisibilityBatch. Entries are {@code
 * Entries} in JSON and {@code <Action>RequestEntry.N.*} in the query protocol; the batch rules (1 to 10 entries, ids,
 * no id twice, the total size) and each entry's own are the domain's, which answers per entry; this writes each
 * under {@code Successful} or {@code Failed} ({@link SqsMessageViews#batch}). An entry of the wrong shape (a delay
 * that is not a number) refuses the whole request, as a request AWS cannot read.
 */
@ApplicationScoped
public class SqsBatchActions implements SqsActionSet {

    private final SqsMessages messages;
    private final SqsReceipts receipts;

    SqsBatchActions(SqsMessages messages, SqsReceipts receipts) {
        this.messages = messages;
        this.receipts = receipts;
    }

    @Override
    public void register(Map<String, SqsAction> actions) {
        actions.put("SendMessageBatch", this::sendMessageBatch);
        actions.put("DeleteMessageBatch", this::deleteMessageBatch);
        actions.put("ChangeMessageVisibilityBatch", this::changeMessageVisibilityBatch);
    }

    private Uni<SqsAnswer> sendMessageBatch(SqsCall call) {
        QueueName queue = call.queue();
        List<BatchEntry<OutgoingMessage>> entries = entries(
                call, "SendMessageBatch", in -> SqsMessageInputs.outgoing(in).inRequestTracedBy(call.traceHeader()));
        return messages.sendBatch(call.project(), queue, call.senderId(), entries)
                .map(outcomes -> SqsMessageViews.batch("SendMessageBatch", outcomes, SqsMessageViews::sent));
    }

    private Uni<SqsAnswer> deleteMessageBatch(SqsCall call) {
        QueueName queue = call.queue();
        List<BatchEntry<String>> entries = entries(
                call, "DeleteMessageBatch", in -> in.string("ReceiptHandle").orElse(null));
        return receipts.deleteBatch(call.project(), queue, entries)
                .map(outcomes -> SqsMessageViews.batch("DeleteMessageBatch", outcomes, (entry, done) -> {}));
    }

    private Uni<SqsAnswer> changeMessageVisibilityBatch(SqsCall call) {
        QueueName queue = call.queue();
        List<BatchEntry<SqsReceipts.VisibilityRequest>> entries = entries(
                call,
                "ChangeMessageVisibilityBatch",
                in -> new SqsReceipts.VisibilityRequest(
                        in.string("ReceiptHandle").orElse(null),
                        in.integer("VisibilityTimeout").orElse(null)));
        return receipts.changeVisibilityBatch(call.project(), queue, entries)
                .map(outcomes -> SqsMessageViews.batch("ChangeMessageVisibilityBatch", outcomes, (entry, done) -> {}));
    }

    /** The request's entries, each read by {@code read}: {@code Entries}, or {@code <action>RequestEntry.N}. */
    private static <T> List<BatchEntry<T>> entries(SqsCall call, String action, Function<SqsParameters, T> read) {
        List<SqsParameters> given = call.parameters().structures("Entries", action + "RequestEntry");
        List<BatchEntry<T>> entries = new ArrayList<>(given.size());
        for (SqsParameters entry : given) {
            entries.add(new BatchEntry<>(entry.string("Id").orElse(null), read.apply(entry)));
        }
        return entries;
    }
}
