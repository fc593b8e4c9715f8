package io.pigeon.subscription;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.subscription.SocketRoutes.Feed;
import io.pigeon.subscription.SocketRoutes.QueueKey;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/**
 * The catch-up after a reconnect and the notices that wait behind it, in the order that pushed posts twice: a post of
 * more than {@link SocketRoutes#REMEMBERED} messages made as the connection came back is read back by the catch-up,
 * and its notice, heard meanwhile, is taken after it. Here the read-back is a list of ids, so the order is certain.
 */
class CatchUpAndNoticesTest {

    private static final QueueKey QUEUE = new QueueKey(null, "project", "queue");
    private static final QueueKey OTHER = new QueueKey(null, "project", "other");

    private final List<Long> pushed = new ArrayList<>();

    /** What SocketReadBack does with a page of the catch-up: takes its ids out of the waiting notices, pushes. */
    private void catchUpPage(WaitingNotices waiting, Feed feed, long[] page) {
        waiting.dropRead(QUEUE, page);
        for (long id : page) {
            if (feed.firstPush(id)) {
                pushed.add(id);
            }
        }
    }

    /** What SocketReadBack does with the waiting notices: reads their ids back, pushes those not pushed. */
    private void noticesTaken(WaitingNotices waiting, Feed feed) {
        while (!waiting.isEmpty()) {
            for (long id : waiting.take(1000).ids()) {
                if (feed.firstPush(id)) {
                    pushed.add(id);
                }
            }
        }
    }

    @Test
    void aPostTheCatchUpPushedIsNotPushedAgainByItsNotice() {
        WaitingNotices waiting = new WaitingNotices(100_000);
        Feed feed = new Feed();
        feed.startAt(0);
        // The post of 1,500 messages, noticed while the catch-up reads the backlog of 3,000 before it.
        long[] post = LongStream.rangeClosed(3_001, 4_500).toArray();
        assertTrue(waiting.add(QUEUE, post));
        long[] other = {9_001, 9_002};
        assertTrue(waiting.add(OTHER, other));
        for (long from = 1; from <= 4_500; from += 1000) {
            catchUpPage(
                    waiting,
                    feed,
                    LongStream.range(from, Math.min(from + 1000, 4_501)).toArray());
        }
        assertEquals(2, waiting.count(), "the other queue's notice is kept");
        noticesTaken(waiting, feed);
        assertEquals(LongStream.rangeClosed(1, 4_500).boxed().toList(), pushed.subList(0, 4_500), "in order, once");
        assertEquals(List.of(9_001L, 9_002L), pushed.subList(4_500, pushed.size()), "the other queue's");
    }

    @Test
    void aNoticeHeardAfterTheCatchUpReadItsPostFindsItPushedUntilTheMark() {
        WaitingNotices waiting = new WaitingNotices(100_000);
        Feed feed = new Feed();
        feed.startAt(0);
        feed.hold();
        for (long from = 1; from <= 4_500; from += 1000) {
            catchUpPage(
                    waiting,
                    feed,
                    LongStream.range(from, Math.min(from + 1000, 4_501)).toArray());
        }
        // Heard once the catch-up had read its post, then the mark the catch-up sent.
        assertTrue(waiting.add(QUEUE, LongStream.rangeClosed(3_001, 4_500).toArray()));
        waiting.addMark("mark");
        WaitingNotices.Batch batch;
        while ((batch = waiting.take(1000)).mark() == null) {
            for (long id : batch.ids()) {
                if (feed.firstPush(id)) {
                    pushed.add(id);
                }
            }
        }
        assertEquals("mark", batch.mark());
        assertEquals(LongStream.rangeClosed(1, 4_500).boxed().toList(), pushed, "in order, once");
        feed.release();
        assertEquals(SocketRoutes.REMEMBERED, feed.remembered());
        assertEquals(4_500 - SocketRoutes.REMEMBERED, feed.floor(), "the highest id forgotten");
        assertFalse(feed.firstPush(4_500));
    }

    @Test
    void anIdTheCatchUpDidNotReadIsStillPushedByItsNotice() {
        WaitingNotices waiting = new WaitingNotices(100_000);
        Feed feed = new Feed();
        feed.startAt(0);
        // 2,000 committed late, after the catch-up read past it; 2,001 to 3,500 read by the catch-up.
        assertTrue(waiting.add(QUEUE, new long[] {2_000, 2_001, 2_002}));
        catchUpPage(waiting, feed, LongStream.rangeClosed(2_001, 3_500).toArray());
        assertEquals(1, waiting.count());
        noticesTaken(waiting, feed);
        assertEquals(1_501, pushed.size());
        assertEquals(2_000L, pushed.get(pushed.size() - 1), "the late commit, pushed by its notice");
    }

    @Test
    void aNoticeTakenInPartIsCutToWhatIsLeft() {
        WaitingNotices waiting = new WaitingNotices(100_000);
        assertTrue(waiting.add(QUEUE, new long[] {1, 2, 3, 4, 5}));
        assertEquals(List.of(1L, 2L), waiting.take(2).ids());
        waiting.dropRead(QUEUE, new long[] {2, 3, 5});
        assertEquals(1, waiting.count());
        assertEquals(List.of(4L), waiting.take(10).ids());
        assertTrue(waiting.isEmpty());
    }

    @Test
    void theBoundCountsWhatWasDropped() {
        WaitingNotices waiting = new WaitingNotices(3);
        assertTrue(waiting.add(QUEUE, new long[] {1, 2, 3}));
        assertFalse(waiting.add(QUEUE, new long[] {4}));
        waiting.dropRead(QUEUE, new long[] {1, 2, 3});
        assertTrue(waiting.isEmpty());
        assertTrue(waiting.add(QUEUE, new long[] {4, 5, 6}));
    }

    @Test
    void aFeedRemembersTheHighestIdsAsTheSetDid() {
        Feed feed = new Feed();
        for (long id = 4_000; id > 0; id -= 2) {
            assertTrue(feed.firstPush(id));
        }
        assertEquals(SocketRoutes.REMEMBERED, feed.remembered());
        assertEquals(4_000 - 2 * SocketRoutes.REMEMBERED, feed.floor(), "the highest id forgotten");
        assertFalse(feed.firstPush(4_000));
        assertFalse(feed.firstPush(4_000 - 2 * (SocketRoutes.REMEMBERED - 1)));
        assertTrue(feed.firstPush(3_999), "between two remembered");
        assertFalse(feed.firstPush(3_999));
        assertEquals(4_000 - 2 * (SocketRoutes.REMEMBERED - 1), feed.floor(), "the lowest forgotten for it");
        assertTrue(feed.firstPush(5), "below every remembered: pushed, forgotten at once");
        assertEquals(SocketRoutes.REMEMBERED, feed.remembered());
        assertTrue(feed.firstPush(5_000));
        assertFalse(feed.firstPush(5_000));
    }
}
