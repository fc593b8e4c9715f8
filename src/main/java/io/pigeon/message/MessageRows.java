package io.pigeon.message;

import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.RowSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Reads messages out of result rows with the columns {@code id, ttl, age, body}. Statements that must tell
 * a missing queue from an empty one select from the queue with a LEFT JOIN to its messages: no row means
 * no queue, and a row whose {@code id} is null means no message.
 */
public final class MessageRows {

    private MessageRows() {
    }

    public static Message toMessage(Row row) {
        return new Message(row.getLong("id"), row.getInteger("ttl"), row.getLong("age"), row.getString("body"));
    }

    public static List<Message> toMessages(RowSet<Row> rows) {
        List<Message> messages = new ArrayList<>(rows.size());
        for (Row row : rows) {
            if (row.getLong("id") != null) {
                messages.add(toMessage(row));
            }
        }
        return messages;
    }

    /** The messages of a queue-scoped LEFT JOIN, or empty when the queue does not exist. */
    public static Optional<List<Message>> ofQueue(RowSet<Row> rows) {
        return rows.size() == 0 ? Optional.empty() : Optional.of(toMessages(rows));
    }
}
