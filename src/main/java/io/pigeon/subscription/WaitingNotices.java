package io.pigeon.subscription;

import io.pigeon.subscription.SocketRoutes.QueueKey;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The ids noticed for one database's socket-subscribed queues and not read back yet, in the order they were noticed,
 * bounded by {@code pigeon.socket-subscriptions.max-waiting}. Kept apart from {@link SocketReadBack} so that what the
 * catch-up after a reconnect takes out of them can be checked alone: the catch-up pushes a post itself when its notice
 * is still waiting, and that notice must not push it again once the queue's remembered ids have moved past it.
 */
final class WaitingNotices {

    /** A run of ids posted to one queue, some of them taken already. */
    private static final class Notice {
        final QueueKey key;
        long[] ids;
        int next;
        /** A read-back's mark instead of a run of ids (no key). */
        final String mark;

        Notice(QueueKey key, long[] ids, String mark) {
            this.key = key;
            this.ids = ids;
            this.mark = mark;
        }
    }

    /**
     * The ids taken for one read-back statement, with the project and stored name of each, and their queues; or, alone,
     * the mark a read-back after a reconnect sent ({@code mark}): every notice heard before it was taken.
     */
    record Batch(
            List<String> projects, List<String> names, List<Long> ids, Map<List<String>, QueueKey> keys, String mark) {}

    private final int max;
    /** Guarded by {@code this}. */
    private final ArrayDeque<Notice> waiting = new ArrayDeque<>();
    /** Guarded by {@code this}. */
    private int count;

    WaitingNotices(int max) {
        this.max = max;
    }

    /** Adds a notice's ids; false (nothing added) when that would pass the bound. */
    synchronized boolean add(QueueKey key, long[] ids) {
        if (count + ids.length > max) {
            return false;
        }
        waiting.add(new Notice(key, ids, null));
        count += ids.length;
        return true;
    }

    /** The mark a read-back sent was heard: taken alone, once every notice heard before it was. */
    synchronized void addMark(String mark) {
        waiting.add(new Notice(null, new long[0], mark));
    }

    synchronized int count() {
        return count;
    }

    synchronized boolean isEmpty() {
        return waiting.isEmpty();
    }

    /** Takes up to {@code most} ids, oldest notice first. */
    synchronized Batch take(int most) {
        List<String> projects = new ArrayList<>();
        List<String> names = new ArrayList<>();
        List<Long> ids = new ArrayList<>();
        Map<List<String>, QueueKey> keys = new LinkedHashMap<>();
        while (!waiting.isEmpty() && ids.size() < most) {
            Notice notice = waiting.peek();
            if (notice.key == null) {
                if (ids.isEmpty()) {
                    waiting.poll();
                    return new Batch(projects, names, ids, keys, notice.mark);
                }
                break;
            }
            while (notice.next < notice.ids.length && ids.size() < most) {
                projects.add(notice.key.project());
                names.add(notice.key.storedName());
                ids.add(notice.ids[notice.next++]);
                count--;
            }
            keys.put(List.of(notice.key.project(), notice.key.storedName()), notice.key);
            if (notice.next == notice.ids.length) {
                waiting.poll();
            }
        }
        return new Batch(projects, names, ids, keys, null);
    }

    /**
     * Takes out of the waiting notices of {@code key}'s queue the ids the catch-up read ({@code read}, ascending): it
     * pushed them, in order, and a notice taken after it would push them again, late. Ids it did not read stay (a post
     * that committed after its read with a lower id, a message a redrive moved in with its old id).
     */
    synchronized void dropRead(QueueKey key, long[] read) {
        if (read.length == 0) {
            return;
        }
        Iterator<Notice> notices = waiting.iterator();
        while (notices.hasNext()) {
            Notice notice = notices.next();
            if (!key.equals(notice.key)) {
                continue;
            }
            long[] kept = new long[notice.ids.length - notice.next];
            int left = 0;
            for (int i = notice.next; i < notice.ids.length; i++) {
                if (Arrays.binarySearch(read, notice.ids[i]) < 0) {
                    kept[left++] = notice.ids[i];
                }
            }
            count -= kept.length - left;
            if (left == 0) {
                notices.remove();
            } else {
                notice.ids = Arrays.copyOf(kept, left);
                notice.next = 0;
            }
        }
    }
}
