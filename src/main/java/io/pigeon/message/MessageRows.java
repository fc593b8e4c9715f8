package io.pigeon.message;

import io.pigeon.encryption.MessageCipher;
import io.pigeon.queue.PlacedQueue;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.RowSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Reads messages out of result rows with the columns {@code id, ttl, age, body, key_id, claim_count} (and {@code message_group} where
 * a statement selects it), opening the bodies
 * stored sealed, so that every read path answers bodies in clear. A row whose body does not open (its key is not
 * configured, or the row was changed) is never answered and never fails the others: it is counted among the
 * {@link Read#unreadable} rows, for the caller to report, and to set aside when its statement took it.
 * Statements that must tell a missing queue from an empty one select from the queue with a LEFT JOIN to its
 * messages: no row means no queue, and a row whose {@code id} is null means no message.
 */
public final class MessageRows {

    private final MessageCipher cipher;
    private final String project;
    private final String queue;

    private MessageRows(MessageCipher cipher, String project, String queue) {
        this.cipher = cipher;
        this.project = project;
        this.queue = queue;
    }

    /** A reader of the rows of {@code queue}. */
    public static MessageRows of(MessageCipher cipher, PlacedQueue queue) {
        return new MessageRows(cipher, queue.project(), queue.storedName());
    }

    /** A stored row whose body does not open, with why (never the body), and the row as the statement gave it. */
    public record Unopened(long id, String keyId, String reason, Row row) {}

    /** The messages of some rows that opened, and the rows that did not. */
    public record Read(List<Message> messages, List<Unopened> unreadable) {
        public static Read none() {
            return new Read(List.of(), List.of());
        }
    }

    /** The row's message, or null when its body does not open; then the row is added to {@code unreadable}. */
    public Message open(Row row, List<Unopened> unreadable) {
        String keyId = row.getString("key_id");
        try {
            return new Message(
                    row.getLong("id"),
                    row.getInteger("ttl"),
                    row.getLong("age"),
                    cipher.open(project, queue, keyId, row.getString("body")),
                    claimCount(row),
                    group(row),
                    trace(row));
        } catch (MessageCipher.Unreadable e) {
            unreadable.add(new Unopened(row.getLong("id"), keyId, e.getMessage(), row));
            return null;
        }
    }

    /**
     * The row's {@code claim_count}, which every statement that answers messages to a reader selects; 0 for rows of
     * statements that answer no reader (a push to a socket subscriber).
     */
    private static int claimCount(Row row) {
        int column = row.getColumnIndex("claim_count");
        return column < 0 ? 0 : row.getInteger(column);
    }

    /** The row's {@code message_group}, where the statement selects it (null: none, or not selected). */
    private static String group(Row row) {
        int column = row.getColumnIndex("message_group");
        return column < 0 ? null : row.getString(column);
    }

    /** The row's trace context, where the statement selects it (null: none, or not selected). */
    private static TraceContext trace(Row row) {
        int column = row.getColumnIndex("traceparent");
        return column < 0 ? null : TraceContext.stored(row.getString(column), row.getString("tracestate"));
    }

    public Read read(Iterable<Row> rows) {
        List<Message> messages = new ArrayList<>();
        List<Unopened> unreadable = new ArrayList<>(0);
        for (Row row : rows) {
            if (row.getLong("id") != null) {
                Message message = open(row, unreadable);
                if (message != null) {
                    messages.add(message);
                }
            }
        }
        return new Read(messages, unreadable);
    }

    /** The messages of a queue-scoped LEFT JOIN, or empty when the queue does not exist. */
    public Optional<Read> ofQueue(RowSet<Row> rows) {
        return rows.size() == 0 ? Optional.empty() : Optional.of(read(rows));
    }
}
