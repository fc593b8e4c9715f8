package io.pigeon.api.sqs;

import java.util.Map;

/**
 * A group of SQS actions, found by CDI: the queue actions ({@link SqsQueueActions}), the message actions, the move
 * tasks. A new group is a bean implementing this that puts each action it serves under AWS's name for it; no other
 * code changes.
 */
public interface SqsActionSet {

    /** Puts each action under its name ({@code "CreateQueue"}); a name two groups claim stops the start. */
    void register(Map<String, SqsAction> actions);
}
