package io.pigeon.claim;

import io.pigeon.message.Message;
import java.util.List;
import java.util.UUID;

/** A live claim: its TTL, its age in seconds (reset by a renewal), and the live messages it holds. */
public record Claim(UUID id, int ttl, long age, List<Message> messages) {}
