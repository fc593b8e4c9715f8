package io.pigeon.api.scaler;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.pigeon.rules.Rejection;
import io.pigeon.storage.DatabaseFailures;
import io.pigeon.tenancy.Unauthenticated;
import org.jboss.logging.Logger;

/**
 * The one table from a refusal to the gRPC status KEDA is answered with, as {@code io.pigeon.api.Rejections} is for
 * HTTP: the switch names every reason, so a new one does not compile until it has its status. The description is the
 * refusal's own, which names the metadata key or the setting.
 */
final class ScalerStatuses {

    private static final Logger LOG = Logger.getLogger(ScalerStatuses.class);

    private ScalerStatuses() {}

    /** The status a failure is answered with; nothing internal is shown. */
    static StatusRuntimeException of(Throwable failure) {
        if (failure instanceof StatusRuntimeException status) {
            return status;
        }
        if (failure instanceof Unauthenticated unauthenticated) {
            return Status.UNAUTHENTICATED
                    .withDescription(unauthenticated.getMessage())
                    .asRuntimeException();
        }
        if (failure instanceof Rejection rejection) {
            return status(rejection.reason())
                    .withDescription(rejection.description())
                    .asRuntimeException();
        }
        if (DatabaseFailures.isUnavailable(failure)) {
            return Status.UNAVAILABLE
                    .withDescription("The database cannot be reached; try again later.")
                    .asRuntimeException();
        }
        LOG.errorf(failure, "A scaler call failed");
        return Status.INTERNAL.withDescription("Unexpected error.").asRuntimeException();
    }

    private static Status status(Rejection.Reason reason) {
        return switch (reason) {
            case INVALID_REQUEST,
                    INVALID_BODY,
                    INVALID_PARAMETER,
                    MISSING_PARAMETER,
                    INVALID_IDENTIFICATION,
                    INVALID_TOPIC_IDENTIFICATION,
                    PROJECT_MISSING,
                    UNABLE_TO_CREATE,
                    CLAIM_MISMATCH,
                    KEY_REUSED -> Status.INVALID_ARGUMENT;
            case FORBIDDEN, IN_USE, CLAIM_REQUIRED -> Status.PERMISSION_DENIED;
            case NOT_FOUND -> Status.NOT_FOUND;
            case CONFLICT, DUPLICATE -> Status.FAILED_PRECONDITION;
            case UNAVAILABLE -> Status.UNAVAILABLE;
            case QUOTA_REACHED, QUOTA_BACKLOG -> Status.RESOURCE_EXHAUSTED;
        };
    }
}
