package io.pigeon.sqs;

import io.pigeon.config.PigeonConfig;
import io.pigeon.observability.QueueMetrics;
import io.pigeon.observability.StatementObservers;
import io.pigeon.pool.QueueDatabases;
import io.pigeon.queue.PlacedQueue;
import io.pigeon.queue.QueueName;
import io.pigeon.storage.Coalescer;
import io.pigeon.storage.CoalescingSettings;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What SQS does with a receipt handle: DeleteMessage(Batch) and ChangeMessageVisibility(Batch), on the rows Zaqar's
 * claims hold (decision 0019). A handle opens only for its own queue and project ({@link ReceiptHandles});
 * one that does not is {@code ReceiptHandleIsInvalid}. A delete with a handle that is no longer its message's latest
 * receive deletes nothing and succeeds, as SQS documents it for DeleteMessage; a visibility change needs the message in
 * flight under that very receive ({@code MessageNotInflight} otherwise), and a message that is gone is refused as
 * AWS refuses it ({@code InvalidParameterValue}).
 */
@ApplicationScoped
public class SqsReceipts {

    private final SqsMessageStore store;
    private final QueueDatabases databases;
    private final PigeonConfig config;
    private final ReceiptHandles handles;
    private final QueueMetrics metrics;
    /** Deletes by receipts on one database arriving while one runs share the next statement, as Zaqar's deletes do. */
    private final Coalescer<SqlClient, SqsMessageStore.ReceiptsInQueue, SqsMessageStore.Deleted> deletes;

    public SqsReceipts(
            SqsMessageStore store,
            QueueDatabases databases,
            PigeonConfig config,
            ReceiptHandles handles,
            QueueMetrics metrics,
            StatementObservers statements,
            CoalescingSettings coalescing) {
        this.store = store;
        this.databases = databases;
        this.config = config;
        this.handles = handles;
        this.metrics = metrics;
        this.deletes = new Coalescer<>(
                store::delete,
                request -> request.receipts().size(),
                request -> 0,
                coalescing,
                statements.of(STATEMENT_KIND));
    }

    /** The kind of the shared deletes by receipts in {@code pigeon_statement_requests}. */
    public static final String STATEMENT_KIND = "receipt-delete";

    /** DeleteMessage. */
    public Uni<Void> delete(String project, QueueName queue, String receiptHandle) {
        return single(deleteBatch(project, queue, List.of(new BatchEntry<>("only", receiptHandle)), false));
    }

    /**
     * The one action (DeleteMessage, ChangeMessageVisibility) as the batch of one entry it is run as: its failure
     * thrown, as a single action answers it, rather than answered beside other entries.
     */
    private static Uni<Void> single(Uni<List<EntryOutcome<Boolean>>> batchOfOne) {
        return batchOfOne.map(outcomes -> {
            EntryOutcome<Boolean> outcome = outcomes.get(0);
            if (!outcome.successful()) {
                throw outcome.failure();
            }
            return null;
        });
    }

    /**
     * DeleteMessageBatch: each entry's handle checked alone; the valid ones deleted in one statement, shared with the
     * deletes by receipts of the same database arriving together (each request still answered its own entries).
     */
    public Uni<List<EntryOutcome<Boolean>>> deleteBatch(
            String project, QueueName queue, List<BatchEntry<String>> entries) {
        return deleteBatch(project, queue, entries, true);
    }

    private Uni<List<EntryOutcome<Boolean>>> deleteBatch(
            String project, QueueName queue, List<BatchEntry<String>> entries, boolean batch) {
        if (batch) {
            BatchRules.check("DeleteMessageBatch", entries);
        }
        return PlacedQueue.of(databases, project, queue)
                .chain(placed -> handles.signer().chain(signer -> {
                    Map<String, Object> opened = new LinkedHashMap<>();
                    List<Receipt> receipts = new ArrayList<>();
                    for (BatchEntry<String> entry : entries) {
                        try {
                            Receipt receipt = signer.open(project, placed.storedName(), entry.request());
                            opened.put(entry.id(), receipt);
                            receipts.add(receipt);
                        } catch (SqsRefusal refusal) {
                            opened.put(entry.id(), refusal);
                        }
                    }
                    return deletes.submit(placed.db(), new SqsMessageStore.ReceiptsInQueue(placed, receipts))
                            .map(deleted -> {
                                if (!deleted.queueFound()) {
                                    throw SqsMessages.noQueue();
                                }
                                metrics.deleted(
                                        project,
                                        placed.storedName(),
                                        deleted.ids().size());
                                return answered(opened);
                            });
                }));
    }

    /** Each entry's answer in their order: its refusal, or success. */
    private static List<EntryOutcome<Boolean>> answered(Map<String, Object> byEntry) {
        List<EntryOutcome<Boolean>> outcomes = new ArrayList<>(byEntry.size());
        byEntry.forEach((id, outcome) -> outcomes.add(
                outcome instanceof SqsRefusal refusal
                        ? EntryOutcome.failed(id, refusal)
                        : EntryOutcome.succeeded(id, Boolean.TRUE)));
        return outcomes;
    }

    /** A visibility change as asked: the handle and the new timeout (0 to 43,200 seconds). */
    public record VisibilityRequest(String receiptHandle, Integer visibilityTimeout) {}

    /**
     * ChangeMessageVisibility: 0 makes the message claimable at once (through either API); more sets that message's
     * own deadline from now (its claim's other messages keep theirs), at most 12 hours after it was received.
     */
    public Uni<Void> changeVisibility(String project, QueueName queue, String receiptHandle, Integer timeout) {
        return single(changeVisibilityBatch(
                project,
                queue,
                List.of(new BatchEntry<>("only", new VisibilityRequest(receiptHandle, timeout))),
                false));
    }

    /** ChangeMessageVisibilityBatch: each entry checked and answered alone, all made in one statement. */
    public Uni<List<EntryOutcome<Boolean>>> changeVisibilityBatch(
            String project, QueueName queue, List<BatchEntry<VisibilityRequest>> entries) {
        return changeVisibilityBatch(project, queue, entries, true);
    }

    private Uni<List<EntryOutcome<Boolean>>> changeVisibilityBatch(
            String project, QueueName queue, List<BatchEntry<VisibilityRequest>> entries, boolean batch) {
        if (batch) {
            BatchRules.check("ChangeMessageVisibilityBatch", entries);
        }
        return PlacedQueue.of(databases, project, queue)
                .chain(placed -> handles.signer().chain(signer -> {
                    Map<String, Object> checked = new LinkedHashMap<>();
                    List<SqsMessageStore.VisibilityChange> changes = new ArrayList<>();
                    List<String> changeIds = new ArrayList<>();
                    for (BatchEntry<VisibilityRequest> entry : entries) {
                        try {
                            SqsMessageStore.VisibilityChange change = checked(signer, project, placed, entry.request());
                            changes.add(change);
                            changeIds.add(entry.id());
                            checked.put(entry.id(), change);
                        } catch (SqsRefusal refusal) {
                            checked.put(entry.id(), refusal);
                        }
                    }
                    // The door found the queue before it called: with no handle to act on, nothing is asked.
                    Uni<SqsMessageStore.Changed> made = changes.isEmpty()
                            ? Uni.createFrom().item(new SqsMessageStore.Changed(true, List.of()))
                            : store.changeVisibility(
                                    placed, changes, config.maxMessageTtl(), SqsMessages.MAX_VISIBILITY_TIMEOUT);
                    return made.map(changed -> {
                        if (!changed.queueFound()) {
                            throw SqsMessages.noQueue();
                        }
                        for (int i = 0; i < changeIds.size(); i++) {
                            SqsRefusal refusal = refusal(changed.outcomes().get(i), changes.get(i));
                            if (refusal != null) {
                                checked.put(changeIds.get(i), refusal);
                            }
                        }
                        return answered(checked);
                    });
                }));
    }

    private static SqsMessageStore.VisibilityChange checked(
            ReceiptHandles.Signer signer, String project, PlacedQueue placed, VisibilityRequest request) {
        Integer timeout = request.visibilityTimeout();
        if (timeout == null) {
            throw new SqsRefusal(
                    SqsRefusal.Reason.MISSING_PARAMETER, "The request must contain the parameter VisibilityTimeout.");
        }
        if (timeout < 0 || timeout > SqsMessages.MAX_VISIBILITY_TIMEOUT) {
            throw SqsRefusal.invalidValue("Value " + timeout + " for parameter VisibilityTimeout is invalid. Reason:"
                    + " must be between 0 and " + SqsMessages.MAX_VISIBILITY_TIMEOUT + ".");
        }
        return new SqsMessageStore.VisibilityChange(
                signer.open(project, placed.storedName(), request.receiptHandle()), timeout);
    }

    private static SqsRefusal refusal(SqsMessageStore.ChangeOutcome outcome, SqsMessageStore.VisibilityChange change) {
        return switch (outcome) {
            case CHANGED -> null;
            case GONE -> SqsRefusal.invalidValue("Value for parameter ReceiptHandle is invalid. Reason: Message does"
                    + " not exist or is not available for visibility timeout change.");
            case NOT_IN_FLIGHT -> new SqsRefusal(
                    SqsRefusal.Reason.MESSAGE_NOT_INFLIGHT, "The message is not in flight.");
            case BEYOND_MAXIMUM -> SqsRefusal.invalidValue("Value " + change.timeout()
                    + " for parameter VisibilityTimeout is invalid. Reason: Total VisibilityTimeout for the message is"
                    + " beyond the limit [" + SqsMessages.MAX_VISIBILITY_TIMEOUT + " seconds].");
        };
    }
}
