package io.pigeon.message;

/**
 * A message to post: its lifetime and delay in seconds (null: the queue's defaults apply, v2), its body as compact
 * JSON text, and its group (null: none; see {@link MessageGroups}), which a queue ordered by groups claims by.
 */
public record NewMessage(Integer ttl, Integer delay, String body, String group) {

    /** A message without a group. */
    public NewMessage(Integer ttl, Integer delay, String body) {
        this(ttl, delay, body, null);
    }

    /** The same message with another body (its sealed text), its group kept. */
    public NewMessage withBody(String text) {
        return new NewMessage(ttl, delay, text, group);
    }
}
