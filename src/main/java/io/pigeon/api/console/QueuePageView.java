package io.pigeon.api.console;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pigeon.claim.FifoGroups;
import io.pigeon.claim.GroupStore;
import io.pigeon.claim.LiveClaim;
import io.pigeon.message.Message;
import io.pigeon.message.MessageIds;
import io.pigeon.message.MessagePage;
import io.pigeon.queue.Ordering;
import io.pigeon.queue.QueueName;
import io.pigeon.queuemetrics.QueueOverview;
import io.pigeon.queuemetrics.QueueStatus;
import io.pigeon.redrive.RedriveTask;
import io.pigeon.subscription.Subscription;
import io.quarkus.qute.TemplateData;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A queue's page as it is shown: its counts and totals, its flow chart, its ordering (and a fifo queue's groups), its
 * metadata, the messages it holds, its claims in flight, its subscriptions and its redrive tasks, made from what the
 * services answer. A plain factory: values in, text out (group names are tenant text: the template escapes them).
 */
public final class QueuePageView {

    /** Redrive tasks a queue's page lists, the latest first. */
    private static final int TASKS_SHOWN = 10;

    private QueuePageView() {}

    @TemplateData
    public record Attribute(String name, String value) {}

    @TemplateData
    public record ShownMessage(String id, String age, String ttl, int claimCount, String body, String cut) {}

    @TemplateData
    public record ShownClaim(String id, int ttl, int grace, String age, String remaining, int messages) {}

    @TemplateData
    public record ShownBlockedGroup(String group, long held, String claim, String remaining) {}

    @TemplateData
    public record ShownWaitingGroup(String group, String id, String age, String blocked) {}

    @TemplateData
    public record ShownSubscription(
            String id,
            String subscriber,
            int ttl,
            String age,
            String confirmed,
            String delivery,
            String lastDelivered,
            long failures,
            String lastFailed,
            String lastError,
            String options) {}

    @TemplateData
    public record ShownTask(
            String id, String state, String target, int rate, long moved, long skipped, String reason) {}

    @TemplateData
    public record QueuePage(
            ConsoleViews.Frame frame,
            String queue,
            String queueHref,
            String notice,
            String ready,
            String claimed,
            String delayed,
            String oldestReadyAge,
            String totals,
            String flowMinutes,
            String flowPosted,
            String flowConsumed,
            String flowSummary,
            String ordering,
            String orderingMeans,
            boolean fifo,
            List<ShownBlockedGroup> blockedGroups,
            List<ShownWaitingGroup> waitingGroups,
            String groupsCut,
            List<Attribute> reserved,
            String metadata,
            List<ShownMessage> messages,
            int peekLimit,
            List<ShownClaim> claims,
            List<ShownSubscription> subscriptions,
            List<ShownTask> tasks) {}

    /** What the services answered for one queue's page; {@code peekLimit} is how many messages were asked for. */
    record Read(
            Optional<QueueStatus> status,
            ObjectNode metadata,
            Optional<MessagePage> page,
            List<LiveClaim> claims,
            List<Subscription> subscriptions,
            List<RedriveTask> tasks,
            QueueOverview.Flow flow,
            int peekLimit,
            FifoGroups.Groups groups) {}

    static QueuePage of(ConsoleViews.Frame frame, QueueName name, String notice, Read read) {
        List<Attribute> reserved = new ArrayList<>();
        read.metadata().fields().forEachRemaining(field -> {
            if (field.getKey().startsWith("_")) {
                reserved.add(new Attribute(
                        field.getKey(),
                        field.getValue().isTextual()
                                ? field.getValue().textValue()
                                : field.getValue().toString()));
            }
        });
        QueueStatus status = read.status().orElse(null);
        boolean sampled = status != null && status.sampled();
        QueueOverview.Flow flow = read.flow();
        return new QueuePage(
                frame,
                name.value(),
                frame.projectHref() + "/queues/" + name.value(),
                notice,
                sampled ? ConsoleViews.count(status.ready()) : "–",
                sampled ? ConsoleViews.count(status.claimed()) : "–",
                sampled ? ConsoleViews.count(status.delayed()) : "–",
                sampled && status.ready() > 0 ? ConsoleViews.duration(status.oldestReadyAgeSeconds()) : "–",
                totals(status),
                ConsoleViews.joined(flow.minutes()),
                ConsoleViews.joined(flow.postedPerSecond()),
                ConsoleViews.joined(flow.consumedPerSecond()),
                String.format(
                        "In the last hour: %,.0f posted, %,.0f consumed (by minute, from the per-queue totals).",
                        ConsoleViews.sum(flow.postedPerSecond()) * 60, ConsoleViews.sum(flow.consumedPerSecond()) * 60),
                read.groups().ordering().value(),
                orderingMeans(read.groups().ordering()),
                read.groups().ordering() == Ordering.FIFO,
                read.groups().blocked().stream().map(QueuePageView::blocked).toList(),
                read.groups().waiting().stream().map(QueuePageView::waiting).toList(),
                groupsCut(read.groups()),
                reserved,
                ConsoleViews.readable(read.metadata()),
                messages(read.page().map(MessagePage::messages).orElse(List.of())),
                read.peekLimit(),
                read.claims().stream().map(QueuePageView::claim).toList(),
                read.subscriptions().stream().map(QueuePageView::subscription).toList(),
                read.tasks().stream()
                        .limit(TASKS_SHOWN)
                        .map(QueuePageView::task)
                        .toList());
    }

    /** What the queue's ordering promises, in words (decision 0020). */
    private static String orderingMeans(Ordering ordering) {
        return switch (ordering) {
            case NONE -> "Claims take the oldest free messages; groups are stored and ignored.";
            case FIFO -> "Within a group, claims take messages in post order, and one live claim at a time holds"
                    + " messages of a group: a blocked group waits until that claim is deleted, released or ends.";
            case FAIR -> "Claims serve the groups in turn, any order within a group; no group blocks.";
        };
    }

    /** When a list of groups was cut, which groups it shows; null when both are whole. */
    private static String groupsCut(FifoGroups.Groups groups) {
        if (!groups.moreBlocked() && !groups.moreWaiting()) {
            return null;
        }
        return "Each list shows the first " + groups.shown() + " groups by name"
                + (groups.moreBlocked() ? "; more groups are blocked" : "")
                + (groups.moreWaiting() ? "; more groups have waiting messages" : "")
                + ". The API's claims see them all.";
    }

    private static ShownBlockedGroup blocked(GroupStore.Blocked group) {
        return new ShownBlockedGroup(
                group.group(), group.held(), group.claim().toString(), ConsoleViews.duration((double)
                        group.remaining()));
    }

    private static ShownWaitingGroup waiting(GroupStore.Waiting group) {
        return new ShownWaitingGroup(
                group.group(),
                MessageIds.format(group.messageId()),
                ConsoleViews.duration((double) group.age()),
                group.blocked() ? "yes" : "no");
    }

    private static String totals(QueueStatus status) {
        return status == null
                ? "–"
                : String.format(
                        "posted %,d · claimed %,d · deleted %,d · dead-lettered %,d · notifications %,d delivered,"
                                + " %,d failed",
                        status.posted(),
                        status.claimedTotal(),
                        status.deleted(),
                        status.deadLettered(),
                        status.notificationsDelivered(),
                        status.notificationsFailed());
    }

    private static List<ShownMessage> messages(List<Message> messages) {
        List<ShownMessage> shown = new ArrayList<>();
        for (Message message : messages) {
            String body = message.body();
            boolean cut = body.length() > ConsoleViews.SHOWN_BODY_CHARS;
            // The id as the API gives it (GET /v2/queues/{q}/messages), so it can be used there: not the row number.
            shown.add(new ShownMessage(
                    MessageIds.format(message.id()),
                    ConsoleViews.duration((double) message.age()),
                    ConsoleViews.duration((double) message.ttl()),
                    message.claimCount(),
                    cut ? body.substring(0, ConsoleViews.SHOWN_BODY_CHARS) : body,
                    cut ? "… cut: the body is " + body.getBytes(StandardCharsets.UTF_8).length + " bytes" : null));
        }
        return shown;
    }

    private static ShownClaim claim(LiveClaim claim) {
        return new ShownClaim(
                claim.id().toString(),
                claim.ttl(),
                claim.grace(),
                ConsoleViews.duration((double) claim.age()),
                ConsoleViews.duration((double) claim.remaining()),
                claim.messages());
    }

    private static ShownSubscription subscription(Subscription subscription) {
        Subscription.Delivery delivery = subscription.delivery();
        return new ShownSubscription(
                MessageIds.format(subscription.id()),
                subscription.subscriber(),
                subscription.ttl(),
                ConsoleViews.duration((double) subscription.age()),
                subscription.confirmed() ? "yes" : "no",
                deliveryOf(subscription),
                ConsoleViews.ago(delivery.lastDeliveredSecondsAgo()),
                delivery.failures(),
                ConsoleViews.ago(delivery.lastFailedSecondsAgo()),
                delivery.lastError(),
                subscription.optionsJson());
    }

    /** How this deployment notifies a subscription, in words: a mail subscriber without mail configured says so. */
    private static String deliveryOf(Subscription subscription) {
        if (subscription.socket()) {
            return "pushed to its WebSocket by the replica that holds it";
        }
        if (subscription.mail() && !subscription.delivered()) {
            return "not sent: mail is not configured here (pigeon.notification.mail.enabled=false)";
        }
        return subscription.mail() ? "mailed by this deployment" : "called by this deployment";
    }

    private static ShownTask task(RedriveTask task) {
        return new ShownTask(
                task.id().toString(),
                task.state().text(),
                task.target() == null ? "each message's source" : task.target(),
                task.rate(),
                task.moved(),
                task.skipped(),
                task.reason());
    }
}
