package io.pigeon.storage;

/**
 * The rows that belong to a queue by its id alone: its messages, claims and messages set aside (unreadable). They hold no foreign key to the queue
 * (migration V10), so whatever deletes a queue's rows deletes them itself; it does so through this one fragment, so
 * that a table added to a queue's rows cannot be forgotten by one of the statements that do it.
 */
public final class QueueRows {

    private QueueRows() {}

    /**
     * Common table expressions, {@code messages_gone}, {@code claims_gone} and {@code set_aside_gone}, deleting every
     * message, claim and message set aside of the queues whose ids {@code queueIds} yields (an SQL expression of type {@code bigint[]}).
     */
    public static String deleteAll(String queueIds) {
        return deleteAll(queueIds, "");
    }

    /**
     * As {@link #deleteAll(String)}, with {@code messages_gone} returning a row per deleted message, for a statement
     * that counts them (only then: a queue of a million messages would otherwise keep a million rows for nothing).
     */
    public static String deleteAllCountingMessages(String queueIds) {
        return deleteAll(queueIds, " RETURNING 1");
    }

    private static String deleteAll(String queueIds, String returning) {
        return "messages_gone AS (DELETE FROM messages WHERE queue_id = ANY(" + queueIds + ")" + returning + "),\n"
                + "claims_gone AS (DELETE FROM claims WHERE queue_id = ANY(" + queueIds + ")),\n"
                + "set_aside_gone AS (DELETE FROM messages_set_aside WHERE queue_id = ANY(" + queueIds + "))";
    }
}
