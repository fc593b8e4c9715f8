package io.pigeon.sqs;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The rules every SQS batch request shares (SendMessageBatch, DeleteMessageBatch, ChangeMessageVisibilityBatch): 1 to
 * {@value #MAX_ENTRIES} entries, each id 1 to {@value #MAX_ID_LENGTH} letters, digits, {@code -} and {@code _}, no id
 * twice. A broken rule refuses the whole request, with AWS's code for it.
 */
final class BatchRules {

    static final int MAX_ENTRIES = 10;
    static final int MAX_ID_LENGTH = 80;

    private BatchRules() {}

    /**
     * Checks {@code entries} of the batch action {@code action} ({@code SendMessageBatch}, ...): an empty batch is
     * refused naming the action's entry type, as AWS's answer does.
     */
    static void check(String action, List<? extends BatchEntry<?>> entries) {
        if (entries == null || entries.isEmpty()) {
            throw new SqsRefusal(
                    SqsRefusal.Reason.EMPTY_BATCH_REQUEST,
                    "There should be at least one " + action + "RequestEntry in the request.");
        }
        if (entries.size() > MAX_ENTRIES) {
            throw new SqsRefusal(
                    SqsRefusal.Reason.TOO_MANY_ENTRIES_IN_BATCH_REQUEST,
                    "Maximum number of entries per request are " + MAX_ENTRIES + ". You have sent " + entries.size()
                            + ".");
        }
        Set<String> seen = new HashSet<>();
        for (BatchEntry<?> entry : entries) {
            String id = entry.id();
            if (id == null || id.isEmpty() || id.length() > MAX_ID_LENGTH || !id.matches("[A-Za-z0-9_-]+")) {
                throw new SqsRefusal(
                        SqsRefusal.Reason.INVALID_BATCH_ENTRY_ID,
                        "A batch entry id can only contain alphanumeric characters, hyphens and underscores. It can"
                                + " be at most " + MAX_ID_LENGTH + " letters long.");
            }
            if (!seen.add(id)) {
                throw new SqsRefusal(SqsRefusal.Reason.BATCH_ENTRY_IDS_NOT_DISTINCT, "Id " + id + " repeated.");
            }
        }
    }
}
