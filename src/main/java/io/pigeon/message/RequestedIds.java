package io.pigeon.message;

import java.util.List;

/**
 * The message ids a request names ({@code ?ids=}): the row ids of the well-formed ones, and how many it named
 * in all, which the per-request bound counts (a malformed id names no message but still counts).
 */
public record RequestedIds(long[] rowIds, int named) {

    public static RequestedIds of(List<String> ids) {
        return new RequestedIds(MessageIds.parseAll(ids), ids.size());
    }
}
