package io.pigeon.message;

import io.pigeon.config.PigeonConfig;
import io.pigeon.observability.MessagingOperation;
import io.pigeon.observability.MessagingSpans;
import io.pigeon.observability.QueueMetrics;
import io.pigeon.observability.StatementObservers;
import io.pigeon.pool.QueueDatabases;
import io.pigeon.queue.PlacedQueue;
import io.pigeon.queue.QueueName;
import io.pigeon.rules.Rejection;
import io.pigeon.storage.Coalescer;
import io.pigeon.storage.CoalescingSettings;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;
import java.util.UUID;

/**
 * The rules of deleting messages, apart from posting and reading them ({@link MessageService}): who may delete what
 * (a claimed message only with its own live claim's id), one message or several by their ids, and what each case
 * answers.
 */
@ApplicationScoped
public class MessageDeletes {

    private final MessageStore store;
    private final QueueDatabases databases;
    private final PigeonConfig config;
    private final QueueMetrics metrics;
    private final PageLimits limits;
    private final MessagingSpans spans;
    /** Deletes by ids on one database arriving while one is running share the next statement, whatever their queues. */
    private final Coalescer<SqlClient, MessageStore.IdsInQueue, Integer> deletesByIds;

    public MessageDeletes(
            MessageStore store,
            QueueDatabases databases,
            PigeonConfig config,
            CoalescingSettings coalescingSettings,
            QueueMetrics metrics,
            StatementObservers statements,
            MessagingSpans spans) {
        this.spans = spans;
        this.store = store;
        this.databases = databases;
        this.config = config;
        this.metrics = metrics;
        this.limits = PageLimits.of(config);
        this.deletesByIds = new Coalescer<>(
                store::deleteByIds,
                request -> request.ids().length,
                request -> 0,
                coalescingSettings,
                statements.of("delete"));
    }

    /**
     * Deletes one message. A claimed message can only be deleted with its own live claim's id ({@code claimId},
     * null when none is given); a message that is already gone is not an error.
     */
    public Uni<Void> delete(String project, QueueName queue, long id, UUID claimId) {
        return spans.around(
                MessagingOperation.DELETE, project, queue.value(), 1, deleteOne(project, queue, id, claimId));
    }

    private Uni<Void> deleteOne(String project, QueueName queue, long id, UUID claimId) {
        return PlacedQueue.of(databases, project, queue)
                .chain(placed -> store.delete(placed, id, claimId))
                .map(outcome -> switch (outcome) {
                    case DELETED -> {
                        metrics.deleted(project, queue.value(), 1);
                        yield null;
                    }
                    case GONE -> null;
                    case CLAIMED -> throw new Rejection(
                            Rejection.Reason.CLAIM_REQUIRED,
                            "This message is claimed; it cannot be deleted without a valid claim ID.");
                    case CLAIM_MISMATCH -> throw new Rejection(
                            Rejection.Reason.CLAIM_MISMATCH, "The specified claim does not exist or has expired.");
                    case NOT_CLAIMED -> throw new Rejection(
                            Rejection.Reason.CLAIM_MISMATCH,
                            "A claim was specified, but the message is not currently claimed.");
                });
    }

    /**
     * Deletes one message by the id a request names: an id that cannot be one of ours names no message, so there
     * is nothing to delete.
     */
    public Uni<Void> deleteNamed(String project, QueueName queue, String id, UUID claimId) {
        var rowId = MessageIds.parse(id);
        if (rowId.isEmpty()) {
            return Uni.createFrom().voidItem();
        }
        return delete(project, queue, rowId.get(), claimId);
    }

    /** Deletes the listed messages whatever their claims, as Zaqar's bulk delete does. */
    public Uni<Void> deleteByIds(String project, QueueName queue, RequestedIds ids) {
        limits.requireIdCount(ids);
        return ids.rowIds().length == 0
                ? Uni.createFrom().voidItem()
                : spans.around(
                        MessagingOperation.DELETE,
                        project,
                        queue.value(),
                        ids.rowIds().length,
                        PlacedQueue.of(databases, project, queue)
                                .chain(placed -> deletesByIds.submit(
                                        placed.db(), new MessageStore.IdsInQueue(placed, ids.rowIds())))
                                .invoke(count -> metrics.deleted(project, queue.value(), count))
                                .replaceWithVoid());
    }

    /** Whether a v2 bulk delete must name the claims of the claimed messages among its ids. */
    public boolean deleteNeedsClaimIds() {
        return config.messageDeleteWithClaimId();
    }

    /**
     * Deletes the listed messages, the claimed ones only with their claims' ids ({@code claimIds}; malformed
     * ones hold nothing): if one is held by another claim, nothing is deleted (403).
     */
    public Uni<Void> deleteByIdsWithClaims(String project, QueueName queue, RequestedIds ids, List<UUID> claimIds) {
        limits.requireIdCount(ids);
        if (ids.rowIds().length == 0) {
            return Uni.createFrom().voidItem();
        }
        return PlacedQueue.of(databases, project, queue)
                .chain(placed -> store.deleteByIdsWithClaims(placed, ids.rowIds(), claimIds.toArray(UUID[]::new)))
                .map(deleted -> {
                    int count = deleted.orElseThrow(
                            () -> new Rejection(
                                    Rejection.Reason.CLAIM_REQUIRED,
                                    "A message among ids is claimed; it cannot be deleted without its claim's ID in claim_ids."));
                    metrics.deleted(project, queue.value(), count);
                    return null;
                });
    }
}
