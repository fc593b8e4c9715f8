package io.pigeon.message;

/**
 * A message to post: its lifetime and delay in seconds (null: the queue's defaults apply, v2) and its
 * body as compact JSON text.
 */
public record NewMessage(Integer ttl, Integer delay, String body) {}
