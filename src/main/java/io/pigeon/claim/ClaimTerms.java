package io.pigeon.claim;

/** How long a claim lasts and how long its messages outlive it (grace), both in seconds. */
public record ClaimTerms(int ttl, int grace) {}
