package io.pigeon.quota;

import io.pigeon.rules.Rejection;
import io.vertx.pgclient.PgException;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * The per-project limits and the words a refusal uses. The statements that could exceed a limit check it
 * themselves (SQL function {@code pigeon_refuse}, migration V5) and fail whole, so that a refused request stores
 * nothing; their failure carries SQLSTATE PQ403 (a count at its quota) or PQ429 (a backlog over it) and one of
 * these texts, naming the limit and setting, and becomes a {@link Rejection} with the matching reason (PQ400: a
 * parameter out of a bound that only the database clock can check).
 */
@ApplicationScoped
public class Quotas {

    private final QuotaSettings limits;
    private final String queues;
    private final String subscriptions;
    private final String messages;
    private final String groups;
    private final String notifications;
    private final String pendingItems;
    private final String pendingBytes;
    private final String itemsPerGroup;
    private final String requeuedItemsPerGroup;

    // The texts are sent with every post: made once.
    public Quotas(QuotaSettings quotaSettings) {
        this.limits = quotaSettings;
        this.queues = "The project has " + limits.maxQueuesPerProject() + " queues, its limit "
                + "(pigeon.quotas.max-queues-per-project): delete one before creating another.";
        this.subscriptions = "The queue has " + limits.maxSubscriptionsPerQueue() + " live subscriptions, its limit "
                + "(pigeon.quotas.max-subscriptions-per-queue).";
        this.messages = "The queue holds more than " + limits.maxMessagesPerQueue() + " messages "
                + "(pigeon.quotas.max-messages-per-queue): consume some, then post again.";
        // Dead groups count as pending ones do (see UsageCheck): the texts say how to free them too.
        this.groups =
                "The project has more than " + limits.maxPendingGroupsPerProject() + " deliveries, pending or dead "
                        + "(pigeon.quotas.max-pending-groups-per-project): wait for them to be delivered, or drop dead groups "
                        + "(DELETE /v3/dead-groups/{id}), then try again.";
        this.pendingItems = "The project holds more than " + limits.maxPendingItemsPerProject() + " /v3 items, pending "
                + "or dead (pigeon.quotas.max-pending-items-per-project): wait for them to be delivered, or drop dead "
                + "groups (DELETE /v3/dead-groups/{id}), then push again.";
        this.pendingBytes = "The project holds more than " + limits.maxPendingBytesPerProject() + " bytes of /v3 items "
                + "and notifications, pending or dead (pigeon.quotas.max-pending-bytes-per-project): wait for them to "
                + "be delivered, or drop dead groups (DELETE /v3/dead-groups/{id}), then try again.";
        this.itemsPerGroup = "The group holds " + limits.maxItemsPerGroup() + " pending items, its limit "
                + "(pigeon.quotas.max-items-per-group): wait for them to be delivered, then push again.";
        this.requeuedItemsPerGroup = "Requeued, the dead group's items would join its path's pending group and "
                + "pass the " + limits.maxItemsPerGroup() + " items a group may hold "
                + "(pigeon.quotas.max-items-per-group): wait for the pending group to be delivered, then requeue again.";
        this.notifications = "This post would queue more than " + limits.maxNotificationsPerPost() + " notifications "
                + "(its messages times the queue's webhook subscribers; pigeon.quotas.max-notifications-per-post): "
                + "post fewer messages at once.";
    }

    public QuotaSettings limits() {
        return limits;
    }

    public String queues() {
        return queues;
    }

    public String subscriptions() {
        return subscriptions;
    }

    public String messages() {
        return messages;
    }

    public String groups() {
        return groups;
    }

    public String notifications() {
        return notifications;
    }

    public String pendingItems() {
        return pendingItems;
    }

    public String pendingBytes() {
        return pendingBytes;
    }

    public String itemsPerGroup() {
        return itemsPerGroup;
    }

    public String requeuedItemsPerGroup() {
        return requeuedItemsPerGroup;
    }

    /** The refusal a statement failed with (SQLSTATE PQ403, PQ429 or PQ400), or null when it failed for another reason. */
    public static Rejection refusal(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof PgException pg && pg.getSqlState() != null) {
                switch (pg.getSqlState()) {
                    case "PQ403":
                        return new Rejection(Rejection.Reason.QUOTA_REACHED, pg.getErrorMessage());
                    case "PQ429":
                        return new Rejection(Rejection.Reason.QUOTA_BACKLOG, pg.getErrorMessage());
                    case "PQ400":
                        // A bound the statement checks by the database clock (a /v3 push's ontime horizon).
                        return new Rejection(Rejection.Reason.INVALID_PARAMETER, pg.getErrorMessage());
                    default:
                        break;
                }
            }
        }
        return null;
    }
}
