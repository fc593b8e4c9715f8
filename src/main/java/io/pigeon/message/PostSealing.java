package io.pigeon.message;

import io.pigeon.encryption.MessageCipher;
import io.pigeon.queue.PlacedQueue;
import io.pigeon.queue.ReservedAttributes;
import io.pigeon.rules.Rejection;
import io.smallrye.mutiny.Uni;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;

/**
 * Seals a post's bodies as its queue asks (its {@code _enable_encrypt_messages}), which only the posting statement
 * reads, so that a post stays one round trip: the post is tried the way this replica last saw the queue ask, and once
 * more the other way when the statement finds it asks otherwise (then it stored nothing); refused both ways (the
 * setting switched between the tries), the post is refused as unavailable (503), never as Pigeon's own failure. What
 * was learnt is kept here for the next post to the queue.
 */
final class PostSealing {

    private static final int MAX_REMEMBERED_SEALING_QUEUES = 10_000;

    private final MessageCipher cipher;

    /** The queues (project NUL name) this replica has seen ask for encryption, so that their posts are sealed first. */
    private final Set<String> sealingQueues = ConcurrentHashMap.newKeySet();

    PostSealing(MessageCipher cipher) {
        this.cipher = cipher;
    }

    /**
     * Runs {@code post} with the bodies sealed (and the id of the key that sealed them) when the queue is known to
     * ask for encryption, else in clear (a null key id); when the statement finds that the queue asks otherwise
     * (nothing was stored), once more the other way.
     */
    <T> Uni<T> sealedAsTheQueueAsks(
            PlacedQueue queue, List<NewMessage> messages, BiFunction<List<NewMessage>, String, Uni<T>> post) {
        String key = queue.project() + '\u0000' + queue.storedName();
        boolean seal = sealingQueues.contains(key);
        return postSealedOrNot(queue, messages, seal, post)
                .onFailure(MessageStore::isSealingMismatch)
                .recoverWithUni(mismatch -> {
                    rememberSealing(key, !seal);
                    return postSealedOrNot(queue, messages, !seal, post);
                })
                // Switched back before the second try too (the attribute may be switched at any time): nothing was
                // stored either time, and the same post may succeed when tried again.
                .onFailure(MessageStore::isSealingMismatch)
                .transform(mismatch -> new Rejection(
                        Rejection.Reason.UNAVAILABLE,
                        "The queue's " + ReservedAttributes.ENABLE_ENCRYPT_MESSAGES + " changed while the messages"
                                + " were being stored; nothing was stored. Please try again."));
    }

    private <T> Uni<T> postSealedOrNot(
            PlacedQueue queue,
            List<NewMessage> messages,
            boolean seal,
            BiFunction<List<NewMessage>, String, Uni<T>> post) {
        if (!seal) {
            return post.apply(messages, null);
        }
        if (!cipher.enabled()) {
            return Uni.createFrom()
                    .failure(Rejection.invalidRequest("The queue asks for its messages to be encrypted ("
                            + ReservedAttributes.ENABLE_ENCRYPT_MESSAGES
                            + "), but this server has no encryption key configured."));
        }
        List<NewMessage> sealed = new ArrayList<>(messages.size());
        String keyId = null;
        for (NewMessage message : messages) {
            MessageCipher.Sealed body = cipher.seal(queue.project(), queue.storedName(), message.body());
            keyId = body.keyId();
            sealed.add(message.withBody(body.text()));
        }
        return post.apply(sealed, keyId);
    }

    private void rememberSealing(String queueKey, boolean seals) {
        if (!seals) {
            sealingQueues.remove(queueKey);
            return;
        }
        if (sealingQueues.size() >= MAX_REMEMBERED_SEALING_QUEUES) {
            // Forgetting costs one more round trip on the next post to each: no need for an LRU.
            sealingQueues.clear();
        }
        sealingQueues.add(queueKey);
    }
}
