package io.pigeon.dispatch;

/**
 * What the listings of pending and dead /v3 groups say of every group: which it is, its path, its calls so far. A value
 * of the dispatch domain, so that a reader of the listings (the /v3 API, the console) never holds a store's row.
 */
public record ListedGroup(long id, String mergeKey, String method, String target, int attempts, String lastError) {}
