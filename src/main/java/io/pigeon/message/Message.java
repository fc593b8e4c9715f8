package io.pigeon.message;

/**
 * A message as a reader sees it: {@code ttl} is its whole lifetime in seconds (extended while a claim
 * holds it), {@code age} the seconds since it was posted, {@code body} the JSON text as posted, {@code claimCount}
 * how many claims have taken it, the one holding it now included (a pop counts as the claim that takes it).
 */
public record Message(long id, int ttl, long age, String body, int claimCount) {}
