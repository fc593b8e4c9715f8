package io.pigeon.rules;

/** What every listing shares: the size of a page whose request names no limit. */
public final class Paging {

    /**
     * Rows a page holds when the request gives no {@code limit}: Zaqar's default for queues, topics, messages,
     * claims, subscriptions, pools and flavors, and Pigeon's for /v3 dead groups. Each listing has its own largest
     * limit (configured, or fixed where Zaqar fixes it).
     */
    public static final int DEFAULT_PAGE_SIZE = 10;

    private Paging() {}
}
