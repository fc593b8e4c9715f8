package io.pigeon.purge;

import io.pigeon.message.MessageService;
import io.pigeon.pool.QueueDatabases;
import io.pigeon.queue.PlacedQueue;
import io.pigeon.queue.QueueName;
import io.pigeon.subscription.SubscriptionService;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Empties a queue of what a purge names (v2's {@code resource_types}): its messages and claims, its
 * subscriptions, or both. Both go in one transaction, so a purge that fails half-way changes nothing.
 */
@ApplicationScoped
public class QueuePurge {

    private final QueueDatabases databases;
    private final MessageService messages;
    private final SubscriptionService subscriptions;

    public QueuePurge(QueueDatabases databases, MessageService messages, SubscriptionService subscriptions) {
        this.databases = databases;
        this.messages = messages;
        this.subscriptions = subscriptions;
    }

    public Uni<Void> purge(String project, QueueName queue, boolean ofMessages, boolean ofSubscriptions) {
        if (!ofMessages && !ofSubscriptions) {
            return Uni.createFrom().voidItem();
        }
        // The queue's database is resolved once; its statements then run on the transaction's connection.
        return databases
                .of(project, queue.value())
                .chain(db -> db.withTransaction(transaction -> {
                    PlacedQueue placed = new PlacedQueue(transaction, project, queue);
                    Uni<Void> first = ofMessages
                            ? messages.purge(placed)
                            : Uni.createFrom().voidItem();
                    return first.chain(() -> ofSubscriptions
                            ? subscriptions.deleteAll(placed)
                            : Uni.createFrom().voidItem());
                }));
    }
}
