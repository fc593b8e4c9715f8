package io.pigeon.message;

import io.pigeon.encryption.MessageCipher;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.RowSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Reads messages out of result rows with the columns {@code id, ttl, age, body, key_id}, opening the bodies
 * stored sealed, so that every read path answers bodies in clear. Statements that must tell a missing queue from
 * an empty one select from the queue with a LEFT JOIN to its messages: no row means no queue, and a row whose
 * {@code id} is null means no message.
 */
public final class MessageRows {

    private final MessageCipher cipher;
    private final String project;

    private MessageRows(MessageCipher cipher, String project) {
        this.cipher = cipher;
        this.project = project;
    }

    /** A reader of {@code project}'s rows. */
    public static MessageRows of(MessageCipher cipher, String project) {
        return new MessageRows(cipher, project);
    }

    public Message toMessage(Row row) {
        return new Message(row.getLong("id"), row.getInteger("ttl"), row.getLong("age"),
                cipher.open(project, row.getString("key_id"), row.getString("body")));
    }

    public List<Message> toMessages(RowSet<Row> rows) {
        List<Message> messages = new ArrayList<>(rows.size());
        for (Row row : rows) {
            if (row.getLong("id") != null) {
                messages.add(toMessage(row));
            }
        }
        return messages;
    }

    /** The messages of a queue-scoped LEFT JOIN, or empty when the queue does not exist. */
    public Optional<List<Message>> ofQueue(RowSet<Row> rows) {
        return rows.size() == 0 ? Optional.empty() : Optional.of(toMessages(rows));
    }
}
