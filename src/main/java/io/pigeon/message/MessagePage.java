package io.pigeon.message;

import java.util.List;

/**
 * A page of a queue's messages and where the next page starts: after {@code nextAfter}, or nowhere (null) when this
 * page reached the end of the queue empty. A listing steps over a bounded window of rows, so a page may be short or
 * empty and still have a next page.
 */
public record MessagePage(List<Message> messages, Long nextAfter) {

    /**
     * The page of {@code messages} read from {@code rows} rows (at most {@code limit}; more than the messages when
     * some did not open, which are left out), the last of them {@code lastRow}, found in a window that ended at
     * {@code windowEnd} with rows left beyond it (null when the window reached the queue's end).
     */
    static MessagePage of(List<Message> messages, int rows, Long lastRow, int limit, Long windowEnd) {
        if (rows == limit || windowEnd == null) {
            // A full page continues after its last row; so does a short one at the end (as Zaqar's, whose next
            // page is then empty), and an empty one at the end has no next page. A row left out (unreadable) counts
            // as read: the next page starts after it, never before the rows that followed it on this one.
            return new MessagePage(messages, rows == 0 ? null : lastRow);
        }
        return new MessagePage(messages, windowEnd);
    }

    public boolean last() {
        return nextAfter == null;
    }
}
