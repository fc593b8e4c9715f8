package io.pigeon.message;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.rules.Rejection;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The rules of an idempotent post as a table, one row per case a client meets: what a post with an Idempotency-Key
 * and dedup_ids stores, what it answers, and what its keys remember. The database's part (a key's window, its expiry,
 * a concurrent repeat waiting for the first) shows here as what the keys come back remembering; the end-to-end cases
 * are IdempotentPostTest's.
 */
class KeyedPostPlanTest {

    /** The digest the first post's key remembers; another post's (other body, TTL, delay, dedup_id or count). */
    private static final byte[] FIRST = {1, 2, 3};

    private static final byte[] OTHER = {9, 9, 9};

    /**
     * One row per case. Columns: the post's key; its messages' dedup_ids ({@code -}: a message without one; empty: no
     * message has one); how many messages; its digest ({@code first}: the first post's); what the keys taken come back
     * remembering ({@code kind:key}: taken by this post, new or past its window; {@code kind:key=ids}: remembered, a
     * post's key with the first post's digest); the ids the statement gives the messages stored; then what must follow:
     * the messages stored (their indexes, or {@code refused} as KEY_REUSED), the answer, the keys remembered anew, and
     * the id each new dedup_id remembers. {@code -}: none.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "first post with a key: every message stored, the key remembered  | k |           | 2 | first | key:k                   | 10,11 | 0,1     | 10,11    | key:k         | -",
                "exact repeat: nothing stored, the first post's ids answered       | k |           | 2 | first | key:k=10,11             | -     | -       | 10,11    | -             | -",
                "concurrent repeat, waited for the first's commit: a repeat        | k | a         | 1 | first | key:k=10 dedup:a=10     | -     | -       | 10       | -             | -",
                "repeat of a post whose messages are gone since: still their ids   | k |           | 1 | first | key:k=3                 | -     | -       | 3        | -             | -",
                "the key with another body, ttl, delay or dedup_id: refused        | k |           | 2 | other | key:k=10,11             | -     | refused |          |               |",
                "the key with another count of messages: refused                   | k |           | 3 | other | key:k=10,11             | -     | refused |          |               |",
                "repeat after the window (its key taken again): a new post         | k |           | 2 | first | key:k                   | 20,21 | 0,1     | 20,21    | key:k         | -",
                "new dedup_ids: stored, each remembering its message's id          |   | a b       | 2 | first | dedup:a dedup:b         | 10,11 | 0,1     | 10,11    | dedup:a dedup:b | 10,11",
                "a dedup_id repeated within a post: its first message stored       |   | a a -     | 3 | first | dedup:a                 | 10,11 | 0,2     | 10,10,11 | dedup:a       | 10",
                "a dedup_id remembered from an earlier post: that post's id        |   | a b       | 2 | first | dedup:a=7 dedup:b       | 12    | 1       | 7,12     | dedup:b       | 12",
                "every dedup_id remembered: nothing stored                         |   | a b a     | 3 | first | dedup:a=7 dedup:b=8     | -     | -       | 7,8,7    | -             | -",
                "messages without dedup_id are stored every time                   |   | - a -     | 3 | first | dedup:a=7               | 30,31 | 0,2     | 30,7,31  | -             | -",
                "a new key with dedup_ids: the key all ids, new dedup_ids their own | k | a b b     | 3 | first | key:k dedup:a=7 dedup:b | 12    | 1       | 7,12,12  | key:k dedup:b | 12",
                "a remembered key answers its ids whatever its dedup_ids remember  | k | a         | 1 | first | key:k=10 dedup:a        | -     | -       | 10       | -             | -",
            })
    void decidesWhatToStoreAndWhatToAnswer(
            String name,
            String key,
            String dedup,
            int count,
            String digest,
            String held,
            String storedIds,
            String toStore,
            String answer,
            String fresh,
            String dedupIdsStored) {
        PostKeys keys = new PostKeys(
                key,
                dedup == null
                        ? null
                        : words(dedup).stream()
                                .map(id -> id.equals("-") ? null : id)
                                .toList());
        List<PostKeyStore.Taken> taken = KeyedPostPlan.keysOf(keys);
        Map<PostKeyStore.Taken, PostKeyStore.Remembered> remembered = new HashMap<>();
        for (String one : words(held)) {
            String[] named = one.split("=");
            String[] kindKey = named[0].split(":");
            long[] ids = named.length == 1 ? null : numbers(named[1]);
            remembered.put(
                    new PostKeyStore.Taken(kindKey[0], kindKey[1]),
                    new PostKeyStore.Remembered(kindKey[0].equals(PostKeyStore.KEY) ? FIRST : null, ids));
        }
        assertEquals(new HashSet<>(taken), remembered.keySet(), "the row holds exactly the keys the post takes");
        byte[] postDigest = digest.equals("first") ? FIRST : OTHER;
        if (toStore.equals("refused")) {
            Rejection refused = assertThrows(
                    Rejection.class, () -> KeyedPostPlan.decide(keys, count, postDigest, taken, remembered));
            assertEquals(Rejection.Reason.KEY_REUSED, refused.reason());
            return;
        }
        KeyedPostPlan plan = KeyedPostPlan.decide(keys, count, postDigest, taken, remembered);
        assertArrayEquals(
                numbers(toStore),
                plan.toStore().stream().mapToLong(Integer::longValue).toArray(),
                "stored");
        KeyedPostPlan.Answer answered = plan.answer(numbers(storedIds));
        assertArrayEquals(numbers(answer), answered.ids(), "answer");
        assertEquals(
                words(fresh).stream().filter(word -> !word.equals("-")).toList(),
                answered.fresh().stream()
                        .map(taken1 -> taken1.kind() + ":" + taken1.key())
                        .toList(),
                "keys remembered anew");
        assertArrayEquals(
                numbers(dedupIdsStored),
                answered.dedupIdsStored().stream().mapToLong(Long::longValue).toArray(),
                "ids of the new dedup_ids");
    }

    /** The numbers of a column, comma-separated ({@code -}: none). */
    private static long[] numbers(String column) {
        return column.equals("-")
                ? new long[0]
                : Arrays.stream(column.split(",")).mapToLong(Long::parseLong).toArray();
    }

    /** A post's dedup_ids, nulls allowed (a message without one). */
    private static List<String> dedupIds(String... ids) {
        return Arrays.asList(ids);
    }

    /** The words of a column, space-separated. */
    private static List<String> words(String column) {
        return List.of(column.trim().split(" +"));
    }

    /** Which keys a post takes, in the order taken: its key first, then each distinct dedup_id, nulls left out. */
    static Stream<Object[]> keysTaken() {
        return Stream.of(
                new Object[] {new PostKeys("k", null), List.of("key:k")},
                new Object[] {new PostKeys(null, dedupIds("b", "a", "b")), List.of("dedup:b", "dedup:a")},
                new Object[] {new PostKeys("k", dedupIds(null, "a", null, "a")), List.of("key:k", "dedup:a")},
                new Object[] {new PostKeys(null, dedupIds(null, null)), List.of()});
    }

    @ParameterizedTest
    @MethodSource("keysTaken")
    void takesThePostsKeyThenEachDistinctDedupId(PostKeys keys, List<String> expected) {
        assertEquals(
                expected,
                KeyedPostPlan.keysOf(keys).stream()
                        .map(key -> key.kind() + ":" + key.key())
                        .toList());
    }

    /**
     * What makes a repeat "the same post": the digest of the messages as the client gave them. Each row changes one
     * thing of the first post; each must read as another post (and so be refused under the same key).
     */
    static Stream<Object[]> otherPosts() {
        List<NewMessage> first = List.of(new NewMessage(60, 0, "{\"a\":1}"), new NewMessage(null, null, "2"));
        List<String> firstDedup = dedupIds("x", null);
        return Stream.of(
                new Object[] {"another body", List.of(first.get(0), new NewMessage(null, null, "3")), firstDedup},
                new Object[] {"another ttl", List.of(new NewMessage(61, 0, "{\"a\":1}"), first.get(1)), firstDedup},
                new Object[] {"a ttl given", List.of(first.get(0), new NewMessage(60, null, "2")), firstDedup},
                new Object[] {"another delay", List.of(new NewMessage(60, 1, "{\"a\":1}"), first.get(1)), firstDedup},
                new Object[] {"another dedup_id", first, dedupIds("y", null)},
                new Object[] {"a dedup_id given", first, dedupIds("x", "z")},
                new Object[] {"one message fewer", List.of(first.get(0)), dedupIds("x")},
                new Object[] {
                    "one message more", List.of(first.get(0), first.get(1), first.get(1)), dedupIds("x", null, null)
                },
                new Object[] {"the messages swapped", List.of(first.get(1), first.get(0)), dedupIds(null, "x")},
                new Object[] {
                    "a body's bytes moved into the next",
                    List.of(new NewMessage(60, 0, "{\"a\":1}2"), new NewMessage(null, null, "")),
                    firstDedup
                });
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("otherPosts")
    void anyChangeToTheMessagesIsAnotherPost(String change, List<NewMessage> messages, List<String> dedup) {
        List<NewMessage> first = List.of(new NewMessage(60, 0, "{\"a\":1}"), new NewMessage(null, null, "2"));
        byte[] original = new PostKeys("k", dedupIds("x", null)).digest(first);
        byte[] again = new PostKeys("k", dedupIds("x", null)).digest(List.copyOf(first));
        assertArrayEquals(original, again, "the same post reads the same");
        byte[] other = new PostKeys("k", dedup).digest(messages);
        assertFalse(Arrays.equals(original, other), change);
        PostKeys keys = new PostKeys("k", dedup);
        Map<PostKeyStore.Taken, PostKeyStore.Remembered> remembered = new HashMap<>();
        for (PostKeyStore.Taken key : KeyedPostPlan.keysOf(keys)) {
            remembered.put(
                    key,
                    PostKeyStore.KEY.equals(key.kind())
                            ? new PostKeyStore.Remembered(original, new long[] {1, 2})
                            : new PostKeyStore.Remembered(null, new long[] {1}));
        }
        Rejection refused = assertThrows(
                Rejection.class,
                () -> KeyedPostPlan.decide(keys, messages.size(), other, KeyedPostPlan.keysOf(keys), remembered));
        assertEquals(Rejection.Reason.KEY_REUSED, refused.reason());
        assertNotNull(refused.getMessage());
        assertTrue(refused.getMessage().contains("Idempotency-Key k"), refused.getMessage());
    }
}
