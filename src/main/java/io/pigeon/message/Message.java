package io.pigeon.message;

import java.util.ArrayList;
import java.util.List;

/**
 * A message as a reader sees it: {@code ttl} is its whole lifetime in seconds (extended while a claim
 * holds it), {@code age} the seconds since it was posted, {@code body} the JSON text as posted, {@code claimCount}
 * how many claims have taken it, the one holding it now included (a pop counts as the claim that takes it), and
 * {@code group} the group it was posted in (null: none, or read by a statement that does not select it), {@code trace}
 * the trace context it carries (null: none, or read by a statement that does not select it).
 */
public record Message(long id, int ttl, long age, String body, int claimCount, String group, TraceContext trace) {

    /** A message read without its group. */
    public Message(long id, int ttl, long age, String body, int claimCount) {
        this(id, ttl, age, body, claimCount, null, null);
    }

    /** The {@code traceparent} each of {@code messages} carries, null for one that carries none. */
    public static List<String> producers(List<Message> messages) {
        List<String> producers = new ArrayList<>(messages.size());
        for (Message message : messages) {
            producers.add(message.trace == null ? null : message.trace.traceparent());
        }
        return producers;
    }

    /** A message read without its trace context. */
    public Message(long id, int ttl, long age, String body, int claimCount, String group) {
        this(id, ttl, age, body, claimCount, group, null);
    }
}
