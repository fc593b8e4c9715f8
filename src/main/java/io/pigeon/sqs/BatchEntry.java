package io.pigeon.sqs;

/** One entry of a batch request: the caller's id for it and what it asks. */
public record BatchEntry<T>(String id, T request) {}
