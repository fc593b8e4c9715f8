package io.pigeon.api.sqs;

import io.pigeon.queue.QueueName;
import io.pigeon.sqs.ReceiveRequest;
import io.pigeon.sqs.SqsMessages;
import io.pigeon.sqs.SqsReceipts;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Map;

/**
 * The single-message actions: SendMessage, ReceiveMessage, DeleteMessage and ChangeMessageVisibility. Each finds the
 * caller's queue by its URL ({@link SqsCall#queue()}), reads its input ({@link SqsMessageInputs}), calls
 * {@link SqsMessages} or {@link SqsReceipts} (decision 0019) and writes AWS's output ({@link SqsMessageViews}). No
 * rule lives here. The batches are {@link SqsBatchActions}.
 */
@ApplicationScoped
public class SqsMessageActions implements SqsActionSet {

    private final SqsMessages messages;
    private final SqsReceipts receipts;

    SqsMessageActions(SqsMessages messages, SqsReceipts receipts) {
        this.messages = messages;
        this.receipts = receipts;
    }

    @Override
    public void register(Map<String, SqsAction> actions) {
        actions.put("SendMessage", this::sendMessage);
        actions.put("ReceiveMessage", this::receiveMessage);
        actions.put("DeleteMessage", this::deleteMessage);
        actions.put("ChangeMessageVisibility", this::changeMessageVisibility);
    }

    private Uni<SqsAnswer> sendMessage(SqsCall call) {
        QueueName queue = call.queue();
        return messages.send(
                        call.project(),
                        queue,
                        call.senderId(),
                        SqsMessageInputs.outgoing(call.parameters()).inRequestTracedBy(call.traceHeader()))
                .map(sent -> SqsMessageViews.sent(SqsAnswer.result(), sent));
    }

    private Uni<SqsAnswer> receiveMessage(SqsCall call) {
        QueueName queue = call.queue();
        ReceiveRequest request = SqsMessageInputs.receive(call.parameters());
        return messages.receive(call.project(), queue, request, call.connected())
                .map(SqsMessageViews::received);
    }

    private Uni<SqsAnswer> deleteMessage(SqsCall call) {
        QueueName queue = call.queue();
        String handle = call.parameters().required("ReceiptHandle");
        return receipts.delete(call.project(), queue, handle).map(done -> SqsAnswer.none());
    }

    private Uni<SqsAnswer> changeMessageVisibility(SqsCall call) {
        QueueName queue = call.queue();
        SqsParameters in = call.parameters();
        String handle = in.required("ReceiptHandle");
        return receipts.changeVisibility(
                        call.project(),
                        queue,
                        handle,
                        in.integer("VisibilityTimeout").orElse(null))
                .map(done -> SqsAnswer.none());
    }
}
