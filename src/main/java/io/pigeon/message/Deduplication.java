package io.pigeon.message;

import io.pigeon.queue.PlacedQueue;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Deduplication on the idempotency store for a post that stores its messages in the caller's transaction rather than
 * through {@link MessageService}'s shared statements (the SQS door's FIFO send, which runs the post statement alone):
 * how the queue deduplicates, then the messages' keys taken, only the new ones stored, and their keys remembered, as
 * {@link KeyedPosts} does for Zaqar's posts. Concurrent repeats store once: the second waits for the first's
 * transaction on the key's row.
 */
@ApplicationScoped
public class Deduplication {

    private final PostKeyStore postKeys;

    public Deduplication(PostKeyStore postKeys) {
        this.postKeys = postKeys;
    }

    /**
     * How the queue of {@code tx} (a transaction) deduplicates; marks the transaction as deduplicating, so that its
     * posts may store in a queue that deduplicates by content.
     */
    public Uni<DeduplicationKeys.Settings> settings(PlacedQueue tx) {
        return postKeys.settings(tx);
    }

    /**
     * Within the transaction of {@code tx}: each message's {@code keys} (see {@link DeduplicationKeys#key}; null:
     * none) taken; a message whose key the queue remembers answers the id remembered, one whose key an earlier message
     * of the same post carries answers that one's; the others are stored by {@code storeNew} (given their indexes, in
     * order; answering their ids in that order) and their keys remembered. The ids in request order.
     */
    public Uni<long[]> post(PlacedQueue tx, List<String> keys, Function<List<Integer>, Uni<long[]>> storeNew) {
        PostKeys post = new PostKeys(null, keys.stream().anyMatch(key -> key != null) ? keys : null);
        List<PostKeyStore.Taken> taken = KeyedPostPlan.keysOf(post);
        Uni<Map<PostKeyStore.Taken, PostKeyStore.Remembered>> remembered =
                taken.isEmpty() ? Uni.createFrom().item(Map.of()) : postKeys.take(tx, taken, null);
        return remembered.chain(seen -> {
            KeyedPostPlan plan = KeyedPostPlan.decide(post, keys.size(), null, taken, seen);
            List<Integer> toStore = plan.toStore();
            Uni<long[]> stored = toStore.isEmpty() ? Uni.createFrom().item(new long[0]) : storeNew.apply(toStore);
            return stored.chain(ids -> {
                KeyedPostPlan.Answer answer = plan.answer(ids);
                return answer.fresh().isEmpty()
                        ? Uni.createFrom().item(answer.ids())
                        : postKeys.remember(tx, answer.fresh(), answer.ids(), answer.dedupIdsStored())
                                .replaceWith(answer.ids());
            });
        });
    }
}
