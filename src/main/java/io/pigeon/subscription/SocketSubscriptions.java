package io.pigeon.subscription;

import io.pigeon.queue.QueueName;
import io.smallrye.mutiny.Uni;

/**
 * Subscriptions whose subscriber is a socket held open by a replica (Zaqar's websocket self-subscription), not a
 * URL that the dispatcher calls. A subscribed socket receives every message posted to the queue afterwards, by any
 * replica; the subscription lives as long as the socket does (and no longer than its ttl).
 */
public interface SocketSubscriptions {

    /**
     * Subscribes the socket to the queue, creating the queue as any subscription does; the subscription's id. A
     * second subscription of the same socket to the same queue is refused as a duplicate, as Zaqar refuses a
     * subscriber twice.
     */
    Uni<Long> subscribe(String project, QueueName queue, SubscriptionService.Fields fields, SocketInbox inbox);

    /**
     * The socket's client is deleting subscription {@code id} of {@code queue} (the caller then deletes the row as any
     * subscription's): when it is one the socket made for itself, nothing more is pushed for it from the call on, and
     * it is never stored again after an outage (see {@link SocketPushes}).
     */
    void unsubscribing(SocketInbox inbox, String project, QueueName queue, long id);

    /** Deletes every subscription the socket made for itself; called once, when the socket closes. */
    Uni<Void> forget(SocketInbox inbox);

    /**
     * Deletes the socket's subscriptions in every project its inbox no longer {@linkplain SocketInbox#receivesFor
     * receives for} (its token was replaced by one that does not grant them): nothing more is pushed for them from the
     * call on, and the rows are deleted (freeing the project's quota) when the answer comes.
     */
    Uni<Void> forgetRevoked(SocketInbox inbox);

    /** Where a subscribed socket's notifications go: the transport frames and sends them. */
    interface SocketInbox {

        /** Unique for the life of the replica; never reused. */
        String socketId();

        /** One posted message. Called on any thread; must not block. */
        void deliver(SocketNotification notification);

        /**
         * Whether the socket may still receive what is posted in {@code project}: what its current identity admits (a
         * token that expired or was replaced admits nothing it no longer grants). Nothing is pushed for any other
         * project, and a subscription stored for one is deleted. Called on any thread; must not block.
         */
        boolean receivesFor(String project);
    }

    /**
     * What Zaqar pushes for one message: its ttl, its body (the JSON text the message was posted with) and its
     * queue's name.
     */
    record SocketNotification(int ttl, String bodyJson, String queueName) {}
}
