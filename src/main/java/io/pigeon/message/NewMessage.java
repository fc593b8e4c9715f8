package io.pigeon.message;

/** A message to post: its lifetime in seconds and its body as compact JSON text. */
public record NewMessage(int ttl, String body) {
}
