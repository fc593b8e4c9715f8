package io.pigeon.api.sqs;

import io.pigeon.quota.Quotas;
import io.pigeon.rules.Rejection;
import io.pigeon.sqs.SqsRefusal;
import io.pigeon.storage.DatabaseFailures;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

/**
 * Every failure of an SQS action as one of AWS's errors: an {@link SqsRefusal} as it is, a domain {@link Rejection}
 * (the services the SQS actions share with Zaqar's) by its reason, a quota refused by the database as
 * {@code OverLimit}, a database that cannot answer as {@code ServiceUnavailable}; anything else is Pigeon's fault,
 * logged and answered {@code InternalFailure}, never with its text.
 */
@ApplicationScoped
public class SqsFailures {

    private static final Logger LOG = Logger.getLogger(SqsFailures.class);

    SqsRefusal refusal(Throwable failure) {
        if (failure instanceof SqsRefusal refused) {
            return refused;
        }
        Rejection rejection = failure instanceof Rejection r ? r : Quotas.refusal(failure);
        if (rejection != null) {
            return new SqsRefusal(reasonOf(rejection.reason()), rejection.description());
        }
        if (DatabaseFailures.isUnavailable(failure) || DatabaseFailures.isAbortedByConflict(failure)) {
            LOG.warnf("SQS request not served, database unavailable: %s", failure.toString());
            return new SqsRefusal(
                    SqsRefusal.Reason.SERVICE_UNAVAILABLE,
                    "The service cannot answer right now and changed nothing. Please try again.");
        }
        LOG.error("Unexpected failure of an SQS request", failure);
        return new SqsRefusal(SqsRefusal.Reason.INTERNAL_FAILURE, "An unexpected error occurred; it has been logged.");
    }

    private static SqsRefusal.Reason reasonOf(Rejection.Reason reason) {
        return switch (reason) {
            case INVALID_REQUEST,
                    INVALID_BODY,
                    INVALID_PARAMETER,
                    INVALID_IDENTIFICATION,
                    INVALID_TOPIC_IDENTIFICATION,
                    UNABLE_TO_CREATE,
                    CLAIM_REQUIRED,
                    CLAIM_MISMATCH,
                    KEY_REUSED -> SqsRefusal.Reason.INVALID_PARAMETER_VALUE;
            case MISSING_PARAMETER, PROJECT_MISSING -> SqsRefusal.Reason.MISSING_PARAMETER;
            case NOT_FOUND -> SqsRefusal.Reason.QUEUE_DOES_NOT_EXIST;
            case IN_USE, CONFLICT, DUPLICATE, UNAVAILABLE -> SqsRefusal.Reason.SERVICE_UNAVAILABLE;
            case FORBIDDEN -> SqsRefusal.Reason.ACCESS_DENIED;
            case QUOTA_REACHED -> SqsRefusal.Reason.OVER_LIMIT;
            case QUOTA_BACKLOG -> SqsRefusal.Reason.REQUEST_THROTTLED;
        };
    }
}
