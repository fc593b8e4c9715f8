package io.pigeon.sqs;

/**
 * What became of one entry of a batch: its id and either its result (for a delete or a visibility change, a result
 * with nothing to say is {@link Boolean#TRUE}) or its refusal, with AWS's code ({@code Successful} or {@code Failed}
 * on the wire). A refusal of the whole request (no such queue, too many entries) is thrown instead.
 */
public record EntryOutcome<T>(String id, T result, SqsRefusal failure) {

    public static <T> EntryOutcome<T> succeeded(String id, T result) {
        return new EntryOutcome<>(id, result, null);
    }

    public static <T> EntryOutcome<T> failed(String id, SqsRefusal failure) {
        return new EntryOutcome<>(id, null, failure);
    }

    public boolean successful() {
        return failure == null;
    }
}
