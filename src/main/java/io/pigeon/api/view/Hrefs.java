package io.pigeon.api.view;

import io.pigeon.api.ApiDialect;
import io.pigeon.api.ApiVersion;
import io.pigeon.message.MessageIds;
import io.pigeon.queue.QueueName;
import java.util.UUID;

/**
 * The paths of Zaqar's resources under one API version's root ({@code /v1}, {@code /v2}): built here only, so
 * that every answer names a resource the same way. A queue name needs no escaping (see {@link QueueName}).
 */
public final class Hrefs {

    private Hrefs() {}

    /** The listing of the dialect's queues, or of its topics. */
    public static String collection(ApiDialect dialect) {
        return dialect.version().root() + "/" + dialect.collection();
    }

    /** A queue's path, or a topic's: everything below it is named alike. */
    public static String queue(ApiVersion version, QueueName queue) {
        return version.root() + (queue.isTopic() ? "/topics/" : "/queues/") + queue.name();
    }

    public static String messages(ApiVersion version, QueueName queue) {
        return queue(version, queue) + "/messages";
    }

    public static String message(ApiVersion version, QueueName queue, long id) {
        return messages(version, queue) + "/" + MessageIds.format(id);
    }

    public static String claim(ApiVersion version, QueueName queue, UUID claimId) {
        return queue(version, queue) + "/claims/" + claimId;
    }

    public static String subscriptions(ApiVersion version, QueueName queue) {
        return queue(version, queue) + "/subscriptions";
    }

    public static String subscription(ApiVersion version, QueueName queue, long id) {
        return subscriptions(version, queue) + "/" + MessageIds.format(id);
    }

    /** A queue's redrive tasks (Pigeon's extension, v2 only). */
    public static String redrive(QueueName queue) {
        return queue(ApiVersion.V2, queue) + "/redrive";
    }

    public static String redriveTask(QueueName queue, UUID taskId) {
        return redrive(queue) + "/" + taskId;
    }
}
