package io.pigeon.api.view;

import io.pigeon.message.MessageIds;
import io.pigeon.queue.QueueName;
import java.util.UUID;

/**
 * The paths of Zaqar's resources under one API version's root ({@code /v1}, {@code /v2}): built here only, so
 * that every answer names a resource the same way. A queue name needs no escaping (see {@link QueueName}).
 */
public final class Hrefs {

    public static final String V1 = "/v1";
    public static final String V2 = "/v2";

    private Hrefs() {
    }

    public static String queues(String root) {
        return root + "/queues";
    }

    public static String topics(String root) {
        return root + "/topics";
    }

    /** A queue's path, or a topic's: everything below it is named alike. */
    public static String queue(String root, QueueName queue) {
        return (queue.isTopic() ? topics(root) : queues(root)) + "/" + queue.name();
    }

    public static String messages(String root, QueueName queue) {
        return queue(root, queue) + "/messages";
    }

    public static String message(String root, QueueName queue, long id) {
        return messages(root, queue) + "/" + MessageIds.format(id);
    }

    public static String claim(String root, QueueName queue, UUID claimId) {
        return queue(root, queue) + "/claims/" + claimId;
    }

    public static String subscriptions(String root, QueueName queue) {
        return queue(root, queue) + "/subscriptions";
    }

    public static String subscription(String root, QueueName queue, long id) {
        return subscriptions(root, queue) + "/" + MessageIds.format(id);
    }
}
