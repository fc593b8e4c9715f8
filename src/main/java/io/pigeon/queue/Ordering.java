package io.pigeon.queue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Locale;

/**
 * How a queue's claims (and pops) choose among its free messages, by the messages' groups: the reserved attribute
 * {@code _ordering} (decision 0020). {@link #NONE}: the oldest free messages, groups ignored (Zaqar's claims).
 * {@link #FIFO}: within a group strictly in post order, and never two live claims holding messages of one group.
 * {@link #FAIR}: any order within a group, but a claim serves the groups in turn.
 */
public enum Ordering {
    NONE,
    FIFO,
    FAIR;

    /** The attribute's value that names this ordering. */
    public String value() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The ordering a value names, or null when it names none. */
    public static Ordering named(String value) {
        for (Ordering ordering : values()) {
            if (ordering.value().equals(value)) {
                return ordering;
            }
        }
        return null;
    }

    /** The ordering a queue's metadata sets; {@link #NONE} when it sets none (or, never stored, an unknown one). */
    public static Ordering of(ObjectNode metadata) {
        JsonNode value = metadata == null ? null : metadata.get(ReservedAttributes.ORDERING);
        Ordering named = value != null && value.isTextual() ? named(value.textValue()) : null;
        return named == null ? NONE : named;
    }
}
