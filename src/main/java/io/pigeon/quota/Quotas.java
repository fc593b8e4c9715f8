package io.pigeon.quota;

import io.pigeon.config.PigeonConfig;
import io.vertx.pgclient.PgException;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * The per-project limits and the words a refusal uses. The statements that could exceed a limit check it
 * themselves (SQL function {@code pigeon_quota}, migration V5) and fail whole, so that a refused request stores
 * nothing; their failure carries SQLSTATE PQ403 or PQ429 and one of these texts, naming the limit and setting.
 */
@ApplicationScoped
public class Quotas {

    /** A statement refused by a quota: the HTTP status it asks for and the text for the client. */
    public record Refusal(int status, String description) {
    }

    private final PigeonConfig.Quotas limits;

    public Quotas(PigeonConfig config) {
        this.limits = config.quotas();
    }

    public PigeonConfig.Quotas limits() {
        return limits;
    }

    public String queues() {
        return "The project has " + limits.maxQueuesPerProject() + " queues, its limit "
                + "(pigeon.quotas.max-queues-per-project): delete one before creating another.";
    }

    public String subscriptions() {
        return "The queue has " + limits.maxSubscriptionsPerQueue() + " live subscriptions, its limit "
                + "(pigeon.quotas.max-subscriptions-per-queue).";
    }

    public String messages() {
        return "The queue holds more than " + limits.maxMessagesPerQueue() + " messages "
                + "(pigeon.quotas.max-messages-per-queue): consume some, then post again.";
    }

    public String groups() {
        return "The project has more than " + limits.maxPendingGroupsPerProject() + " pending deliveries "
                + "(pigeon.quotas.max-pending-groups-per-project): wait for them to be delivered, then push again.";
    }

    public String notifications() {
        return "This post would queue more than " + limits.maxNotificationsPerPost() + " notifications (its messages "
                + "times the queue's webhook subscribers; pigeon.quotas.max-notifications-per-post): post fewer messages at once.";
    }

    /** The refusal a statement failed with, or null when it failed for another reason. */
    public static Refusal refusal(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof PgException pg && pg.getSqlState() != null) {
                switch (pg.getSqlState()) {
                    case "PQ403":
                        return new Refusal(403, pg.getErrorMessage());
                    case "PQ429":
                        return new Refusal(429, pg.getErrorMessage());
                    default:
                        break;
                }
            }
        }
        return null;
    }
}
