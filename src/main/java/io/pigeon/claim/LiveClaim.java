package io.pigeon.claim;

import java.util.UUID;

/**
 * A claim in flight as the console lists it: its terms (ttl and grace, seconds), its age and the seconds it has left,
 * and how many messages it took. A value of the claim domain, so that a reader of claims never holds a store's row.
 */
public record LiveClaim(UUID id, int ttl, int grace, long age, long remaining, int messages) {}
