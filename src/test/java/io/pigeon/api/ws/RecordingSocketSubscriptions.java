package io.pigeon.api.ws;

import io.pigeon.queue.QueueName;
import io.pigeon.subscription.SocketSubscriptions;
import io.pigeon.subscription.SubscriptionService;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Alternative;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A stand-in for the cross-replica push, enabled only by {@link SmallSocketLimitsProfile}: it keeps the inbox each
 * socket subscribed with, so that a test can deliver notifications to it, and records which sockets were forgotten.
 */
@Alternative
@Priority(1)
@ApplicationScoped
public class RecordingSocketSubscriptions implements SocketSubscriptions {

    private final Map<String, SocketInbox> inboxes = new ConcurrentHashMap<>();
    private final Set<String> forgotten = ConcurrentHashMap.newKeySet();
    private final AtomicLong ids = new AtomicLong();

    /** The inbox the socket subscribed to {@code queue} of {@code project} with (methods: a test holds a proxy). */
    public SocketInbox inbox(String project, String queue) {
        return inboxes.get(project + "/" + queue);
    }

    public boolean forgot(String socketId) {
        return forgotten.contains(socketId);
    }

    @Override
    public Uni<Long> subscribe(String project, QueueName queue, SubscriptionService.Fields fields, SocketInbox inbox) {
        inboxes.put(project + "/" + queue.name(), inbox);
        return Uni.createFrom().item(ids.incrementAndGet());
    }

    @Override
    public Uni<Void> forget(SocketInbox inbox) {
        forgotten.add(inbox.socketId());
        return Uni.createFrom().voidItem();
    }
}
