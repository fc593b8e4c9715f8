package io.pigeon.message;

import java.util.List;

/**
 * A page of a queue's messages and where the next page starts: after {@code nextAfter}, or nowhere (null) when this
 * page reached the end of the queue empty. A listing steps over a bounded window of rows, so a page may be short or
 * empty and still have a next page.
 */
public record MessagePage(List<Message> messages, Long nextAfter) {

    /**
     * The page of {@code messages} (at most {@code limit}) found in a window that ended at {@code windowEnd} with rows
     * left beyond it (null when the window reached the queue's end).
     */
    static MessagePage of(List<Message> messages, int limit, Long windowEnd) {
        if (messages.size() == limit || windowEnd == null) {
            // A full page continues after its last message; so does a short one at the end (as Zaqar's, whose next
            // page is then empty), and an empty one at the end has no next page.
            return new MessagePage(messages, messages.isEmpty() ? null : messages.get(messages.size() - 1).id());
        }
        return new MessagePage(messages, windowEnd);
    }

    public boolean last() {
        return nextAfter == null;
    }
}
