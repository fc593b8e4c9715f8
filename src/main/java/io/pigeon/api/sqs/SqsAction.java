package io.pigeon.api.sqs;

import io.smallrye.mutiny.Uni;

/** One SQS action: the call in, the answer out (or a failure: an {@code SqsRefusal}, a {@code Rejection}). */
@FunctionalInterface
public interface SqsAction {

    Uni<SqsAnswer> answer(SqsCall call);
}
