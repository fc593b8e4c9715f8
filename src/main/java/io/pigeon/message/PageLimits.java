package io.pigeon.message;

import io.pigeon.config.PigeonConfig;
import io.pigeon.rules.Paging;
import io.pigeon.rules.Rejection;

/**
 * How many messages one request may name or take: a listing's or a claim's {@code limit}, and the ids of a get or
 * delete by ids, each 1 to {@code pigeon.max-messages-per-page}, refused alike beyond it. Read from the configuration
 * once, shared by the services that apply it.
 */
final class PageLimits {

    private final int maxMessagesPerPage;

    private PageLimits(int maxMessagesPerPage) {
        this.maxMessagesPerPage = maxMessagesPerPage;
    }

    static PageLimits of(PigeonConfig config) {
        return new PageLimits(config.maxMessagesPerPage());
    }

    /** A {@code limit} for listing or claiming, 1..max-messages-per-page, {@link Paging#DEFAULT_PAGE_SIZE} when absent. */
    int pageSize(Integer limit) {
        int pageSize = limit == null ? Paging.DEFAULT_PAGE_SIZE : limit;
        if (pageSize < 1 || pageSize > maxMessagesPerPage) {
            throw limitOutOfRange();
        }
        return pageSize;
    }

    /** Refuses a request naming more ids than a page holds. */
    void requireIdCount(RequestedIds ids) {
        if (ids.named() > maxMessagesPerPage) {
            throw limitOutOfRange();
        }
    }

    private Rejection limitOutOfRange() {
        return Rejection.invalidRequest(
                "Limit must be at least 1 and may not be greater than " + maxMessagesPerPage + ".");
    }
}
