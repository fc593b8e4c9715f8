package io.pigeon.reliability;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the clients of the failover drill saw, recorded as they saw it: every post answered 201 (its number and its
 * message id), every claim of a message (with the time its request was sent and answered), every delete, the answers
 * by status, and the first success on each replica after the kill. The verdicts are read from it and from the promoted
 * database once the load has stopped.
 */
final class FailoverLedger {

    /** One claim of one message, by the client's clock: held at least from {@code sentAt} until its TTL ran out. */
    record Holding(long sentAtMillis, long answeredAtMillis, String claimId) {}

    /** Acknowledged posts: the message's number to the id Pigeon answered. */
    final Map<Integer, String> acknowledged = new ConcurrentHashMap<>();

    final Map<Integer, List<Holding>> holdings = new ConcurrentHashMap<>();
    /** Deleted by a consumer whose delete was answered 204. */
    final Set<Integer> deleted = ConcurrentHashMap.newKeySet();
    /** A consumer's delete was sent and answered otherwise (503, or no answer): it may or may not have happened. */
    final Set<Integer> maybeDeleted = ConcurrentHashMap.newKeySet();

    /** Answers by request kind ("post", "claim", "delete", "wait") and status; -1 for no answer in time. */
    private final Map<String, Map<Integer, AtomicInteger>> answers = new ConcurrentHashMap<>();

    /** When the kill of the primary began (System.nanoTime), 0 before. */
    final AtomicLong killedAt = new AtomicLong();
    /**
     * When every process of the primary was gone (System.nanoTime), 0 before: a post sent between the two may still
     * have been committed by a backend of the dying primary (and, with a synchronous standby, on the standby too).
     */
    final AtomicLong goneAt = new AtomicLong();
    /** Per replica: the first post sent once the primary was gone and answered 201, in ms after the kill began. */
    final Map<String, AtomicLong> recoveredAfterMillis = new ConcurrentHashMap<>();

    void answered(String kind, int status) {
        answers.computeIfAbsent(kind, k -> new ConcurrentHashMap<>())
                .computeIfAbsent(status, s -> new AtomicInteger())
                .incrementAndGet();
    }

    /** A post to {@code replica} sent at {@code sentAt} (nanoTime) was answered 201 now. */
    void posted(String replica, long sentAt, int seq, String id) {
        acknowledged.put(seq, id);
        long killed = killedAt.get();
        long gone = goneAt.get();
        if (gone != 0 && sentAt > gone) {
            long after = (System.nanoTime() - killed) / 1_000_000;
            recoveredAfterMillis
                    .computeIfAbsent(replica, r -> new AtomicLong(Long.MAX_VALUE))
                    .accumulateAndGet(after, Math::min);
        }
    }

    void claimed(int seq, Holding holding) {
        holdings.computeIfAbsent(seq, s -> Collections.synchronizedList(new ArrayList<>()))
                .add(holding);
    }

    /** The statuses seen, by kind, sorted. */
    Map<String, Map<Integer, Integer>> answers() {
        Map<String, Map<Integer, Integer>> sorted = new TreeMap<>();
        answers.forEach((kind, statuses) -> {
            Map<Integer, Integer> counts = new TreeMap<>();
            statuses.forEach((status, count) -> counts.put(status, count.get()));
            sorted.put(kind, counts);
        });
        return sorted;
    }

    /**
     * Statuses other than the expected ones: a 500 is one, and so is a request that hung. With {@code refusalsExpected}
     * 4xx are expected too: after a failover to an asynchronous standby a claim acknowledged on the old primary may be
     * gone, and deleting its message with its claim id is refused.
     */
    List<String> unexpectedAnswers(boolean refusalsExpected) {
        List<String> unexpected = new ArrayList<>();
        answers()
                .forEach((kind, statuses) -> statuses.forEach((status, count) -> {
                    boolean expected = (status >= 200 && status <= 299)
                            || status == 503
                            || (refusalsExpected && status >= 400 && status <= 499);
                    if (!expected) {
                        unexpected.add(count + " " + kind + " answered " + (status < 0 ? "nothing in time" : status));
                    }
                }));
        return unexpected;
    }

    int count(String kind, int status) {
        return answers().getOrDefault(kind, Map.of()).getOrDefault(status, 0);
    }

    /** Acknowledged posts neither in the promoted database nor deleted (or maybe deleted) by a consumer. */
    List<Integer> lost(Set<Integer> stored) {
        List<Integer> lost = new ArrayList<>();
        acknowledged.keySet().forEach(seq -> {
            if (!stored.contains(seq) && !deleted.contains(seq) && !maybeDeleted.contains(seq)) {
                lost.add(seq);
            }
        });
        Collections.sort(lost);
        return lost;
    }

    /**
     * Claims answered while an earlier claim of the same message was still live: the earlier claim was made after its
     * request was sent, so it lasted at least until then + its TTL; the later one was made before its answer came.
     */
    long overlappingClaims(int claimTtlSeconds) {
        long overlapping = 0;
        for (List<Holding> list : holdings.values()) {
            List<Holding> held = new ArrayList<>(list);
            held.sort(Comparator.comparingLong(Holding::sentAtMillis));
            for (int i = 1; i < held.size(); i++) {
                if (held.get(i).answeredAtMillis() < held.get(i - 1).sentAtMillis() + claimTtlSeconds * 1000L) {
                    overlapping++;
                }
            }
        }
        return overlapping;
    }

    /** Messages claimed more than once (after an earlier claim ended): delivered again. */
    long claimedAgain() {
        return holdings.values().stream().filter(list -> list.size() > 1).count();
    }
}
