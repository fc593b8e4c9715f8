package io.pigeon.message;

import io.pigeon.queue.ReservedAttributes;
import io.pigeon.rules.Rejection;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The rules of an idempotent post, apart from the transaction that applies them, so that each case reads (and is
 * tested) as a row: given the keys a post took and what each remembers, which of its messages are stored and which are
 * answered with an earlier id; then, given the ids of those stored, the whole answer and what each key taken anew is to
 * remember. A key's window, its expiry and concurrent repeats are the database's (see {@link PostKeyStore#TAKE}): here a
 * key either remembers ids, or was taken by this post (no ids).
 */
final class KeyedPostPlan {

    /** The ids of a post's messages, in request order, and the keys it took anew, each with the id it remembers. */
    record Answer(long[] ids, List<PostKeyStore.Taken> fresh, List<Long> dedupIdsStored) {}

    private final List<PostKeyStore.Taken> taken;
    private final Map<PostKeyStore.Taken, PostKeyStore.Remembered> remembered;
    /** The first post's ids when this one repeats its key; null otherwise. */
    private final long[] repeated;
    /** Per message: the id a dedup_id remembers (else 0). */
    private final long[] earlier;
    /** Per message: the index of the message before it in this post with its dedup_id (else -1). */
    private final int[] sameAs;
    /** Per new dedup_id, the index of the message that carries it first (stored). */
    private final Map<String, Integer> firsts;
    /** The indexes of the messages to store, in request order. */
    private final List<Integer> toStore;

    private KeyedPostPlan(
            List<PostKeyStore.Taken> taken,
            Map<PostKeyStore.Taken, PostKeyStore.Remembered> remembered,
            long[] repeated,
            long[] earlier,
            int[] sameAs,
            Map<String, Integer> firsts,
            List<Integer> toStore) {
        this.taken = taken;
        this.remembered = remembered;
        this.repeated = repeated;
        this.earlier = earlier;
        this.sameAs = sameAs;
        this.firsts = firsts;
        this.toStore = toStore;
    }

    /** The keys a post takes, in the order taken: its Idempotency-Key, then each distinct dedup_id. */
    static List<PostKeyStore.Taken> keysOf(PostKeys keys) {
        List<PostKeyStore.Taken> taken = new ArrayList<>();
        if (keys.key() != null) {
            taken.add(new PostKeyStore.Taken(PostKeyStore.KEY, keys.key()));
        }
        if (keys.dedupIds() != null) {
            keys.dedupIds().stream()
                    .filter(Objects::nonNull)
                    .distinct()
                    .forEach(id -> taken.add(new PostKeyStore.Taken(PostKeyStore.DEDUP, id)));
        }
        return taken;
    }

    /**
     * What a post of {@code count} messages does once its keys ({@link #keysOf}) are taken and {@code remembered} (each
     * one's): a repeat of a remembered Idempotency-Key stores nothing and answers the ids it remembers, unless the key
     * remembers another {@code digest} (refused, KEY_REUSED); otherwise each message is stored, or answered with the
     * id its dedup_id remembers, or with that of the message before it in this post that has its dedup_id.
     */
    static KeyedPostPlan decide(
            PostKeys keys,
            int count,
            byte[] digest,
            List<PostKeyStore.Taken> taken,
            Map<PostKeyStore.Taken, PostKeyStore.Remembered> remembered) {
        if (keys.key() != null) {
            PostKeyStore.Remembered post = remembered.get(new PostKeyStore.Taken(PostKeyStore.KEY, keys.key()));
            if (post.ids() != null) {
                if (!Arrays.equals(post.requestHash(), digest)) {
                    throw new Rejection(
                            Rejection.Reason.KEY_REUSED,
                            "Idempotency-Key " + keys.key() + " was sent with other messages within the queue's "
                                    + ReservedAttributes.DEDUP_WINDOW_SECONDS + ": use a new key for a new post.");
                }
                return new KeyedPostPlan(taken, remembered, post.ids(), null, null, Map.of(), List.of());
            }
        }
        long[] earlier = new long[count];
        int[] sameAs = new int[count];
        Arrays.fill(sameAs, -1);
        Map<String, Integer> firsts = new LinkedHashMap<>();
        List<Integer> toStore = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String dedupId = keys.dedupId(i);
            PostKeyStore.Remembered seen =
                    dedupId == null ? null : remembered.get(new PostKeyStore.Taken(PostKeyStore.DEDUP, dedupId));
            if (seen != null && seen.ids() != null) {
                earlier[i] = seen.ids()[0];
            } else if (dedupId != null && firsts.containsKey(dedupId)) {
                sameAs[i] = firsts.get(dedupId);
            } else {
                if (dedupId != null) {
                    firsts.put(dedupId, i);
                }
                toStore.add(i);
            }
        }
        return new KeyedPostPlan(taken, remembered, null, earlier, sameAs, firsts, toStore);
    }

    /** Whether the post repeats a remembered Idempotency-Key: it stores nothing and remembers nothing. */
    boolean repeat() {
        return repeated != null;
    }

    /** The indexes of the messages to store, in request order (none for a repeat). */
    List<Integer> toStore() {
        return toStore;
    }

    /** The post's answer once the messages {@link #toStore()} were stored as {@code storedIds} (in their order). */
    Answer answer(long[] storedIds) {
        if (storedIds.length != toStore.size()) {
            throw new IllegalArgumentException(
                    "Stored " + storedIds.length + " messages where " + toStore.size() + " were to be stored.");
        }
        if (repeated != null) {
            return new Answer(repeated, List.of(), List.of());
        }
        long[] ids = earlier.clone();
        for (int j = 0; j < toStore.size(); j++) {
            ids[toStore.get(j)] = storedIds[j];
        }
        for (int i = 0; i < ids.length; i++) {
            if (sameAs[i] >= 0) {
                ids[i] = ids[sameAs[i]];
            }
        }
        // The keys taken now, in the order taken: the post's key (if new), then the new dedup_ids.
        List<PostKeyStore.Taken> fresh = new ArrayList<>();
        List<Long> dedupIdsStored = new ArrayList<>();
        for (PostKeyStore.Taken key : taken) {
            if (remembered.get(key).ids() != null) {
                continue;
            }
            fresh.add(key);
            if (PostKeyStore.DEDUP.equals(key.kind())) {
                dedupIdsStored.add(ids[firsts.get(key.key())]);
            }
        }
        return new Answer(ids, fresh, dedupIdsStored);
    }
}
