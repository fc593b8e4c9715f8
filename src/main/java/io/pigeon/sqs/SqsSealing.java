package io.pigeon.sqs;

import io.pigeon.encryption.MessageCipher;
import io.pigeon.message.MessageStore;
import io.pigeon.queue.PlacedQueue;
import io.smallrye.mutiny.Uni;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;
import org.jboss.logging.Logger;

/**
 * Seals what an SQS send stores as its queue asks (its {@code _enable_encrypt_messages}), as a Zaqar post is sealed:
 * the body and the attributes' text both (decision 0019: attributes are message data, so an encrypting queue seals
 * them with the body, under the same key and for the same queue). Only the send's statement reads the queue's
 * setting; the send is tried the way this replica last saw the queue ask and once more the other way when the
 * statement refuses (then it stored nothing); refused both ways (the setting flipped between the tries), the send is
 * answered ServiceUnavailable, which SDKs retry, never as Pigeon's own failure.
 */
final class SqsSealing {

    private static final Logger LOG = Logger.getLogger(SqsSealing.class);
    private static final int MAX_REMEMBERED_QUEUES = 10_000;

    private final MessageCipher cipher;
    private final Set<String> sealingQueues = ConcurrentHashMap.newKeySet();

    SqsSealing(MessageCipher cipher) {
        this.cipher = cipher;
    }

    /** Runs {@code send} with the messages as stored (sealed or not) and the key id (null: in clear). */
    <T> Uni<T> sealedAsTheQueueAsks(
            PlacedQueue queue,
            List<SqsMessageStore.Outgoing> messages,
            BiFunction<List<SqsMessageStore.Outgoing>, String, Uni<T>> send) {
        String key = queue.project() + '\u0000' + queue.storedName();
        boolean seal = sealingQueues.contains(key);
        return sealedOrNot(queue, messages, seal, send)
                .onFailure(MessageStore::isSealingMismatch)
                .recoverWithUni(mismatch -> {
                    remember(key, !seal);
                    return sealedOrNot(queue, messages, !seal, send);
                })
                // Changed back before the second try too: nothing was stored either time, and the setting is the
                // queue owner's to change at any moment, so the client is told to try again (SDKs retry a 503).
                .onFailure(MessageStore::isSealingMismatch)
                .transform(mismatch -> new SqsRefusal(
                        SqsRefusal.Reason.SERVICE_UNAVAILABLE,
                        "The queue's encryption setting changed while the message was being stored; nothing was"
                                + " stored. Please try again."));
    }

    private <T> Uni<T> sealedOrNot(
            PlacedQueue queue,
            List<SqsMessageStore.Outgoing> messages,
            boolean seal,
            BiFunction<List<SqsMessageStore.Outgoing>, String, Uni<T>> send) {
        if (!seal) {
            return send.apply(messages, null);
        }
        if (!cipher.enabled()) {
            return Uni.createFrom()
                    .failure(new SqsRefusal(
                            SqsRefusal.Reason.KMS_DISABLED,
                            "The queue asks for its messages to be encrypted, but this server has no encryption key"
                                    + " configured."));
        }
        List<SqsMessageStore.Outgoing> sealed = new ArrayList<>(messages.size());
        String keyId = null;
        for (SqsMessageStore.Outgoing message : messages) {
            MessageCipher.Sealed body = cipher.seal(queue.project(), queue.storedName(), message.body());
            keyId = body.keyId();
            String attributes = message.attributes() == null
                    ? null
                    : cipher.seal(queue.project(), queue.storedName(), message.attributes())
                            .text();
            sealed.add(new SqsMessageStore.Outgoing(
                    message.delay(), body.text(), attributes, message.group(), message.trace()));
        }
        return send.apply(sealed, keyId);
    }

    /**
     * The stored attributes' text in clear ({@code keyId} null: stored in clear); null when they do not open. They are
     * sealed with the body under the same key, so a row whose key is gone was set aside by its claim already; what is
     * left is a row changed by hand, whose attributes are then left out rather than failing the whole receive.
     */
    String opened(PlacedQueue queue, String keyId, String stored) {
        if (stored == null || keyId == null) {
            return stored;
        }
        try {
            return cipher.open(queue.project(), queue.storedName(), keyId, stored);
        } catch (MessageCipher.Unreadable e) {
            LOG.warnf(
                    "SQS attributes of a message of queue %s of project %s do not open (%s): left out",
                    queue.storedName(), queue.project(), e.getMessage());
            return null;
        }
    }

    private void remember(String queueKey, boolean seals) {
        if (!seals) {
            sealingQueues.remove(queueKey);
            return;
        }
        if (sealingQueues.size() >= MAX_REMEMBERED_QUEUES) {
            sealingQueues.clear();
        }
        sealingQueues.add(queueKey);
    }
}
