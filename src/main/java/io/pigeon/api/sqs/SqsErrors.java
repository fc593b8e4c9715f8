package io.pigeon.api.sqs;

import io.pigeon.sqs.SqsRefusal;

/**
 * How AWS writes each of its SQS errors, in one exhaustive table (a new {@link SqsRefusal.Reason} does not compile
 * until it has its row). SQS moved from the query protocol to JSON 1.0 with the {@code awsQueryCompatible} trait, so an
 * error has two names: the shape's, which the JSON answer's {@code __type} carries and the SDKs match to an exception
 * class, and the query code ({@code AWS.SimpleQueueService.NonExistentQueue}), which the XML answer's {@code Code} and
 * the JSON answer's {@code x-amzn-query-error} header carry and which botocore and aws-sdk-java-v2 then report as the
 * error's code. Codes, statuses and faults are those of the {@code aws.protocols#awsQueryError} traits of AWS's SQS
 * model and of AWS's common errors. The status differs by protocol for the errors SQS's own model declares: the query
 * protocol answers the trait's status (404 for {@code ReceiptHandleIsInvalid}, 403 for {@code OverLimit}), JSON 1.0
 * answers 400 for every one of them, as the JSON model the SDKs are generated from says (aws-sdk-java-v2 registers
 * each of SQS's modeled errors with status 400).
 */
final class SqsErrors {

    /**
     * One error as written: the JSON {@code __type}, the query code, the query protocol's status, whose fault it is,
     * and the JSON protocol's status.
     */
    record Written(String type, String code, int status, boolean senderFault, int jsonStatus) {

        Written(String type, String code, int status, boolean senderFault) {
            this(type, code, status, senderFault, status);
        }

        /** The status in the request's protocol. */
        int status(SqsProtocol protocol) {
            return protocol == SqsProtocol.JSON ? jsonStatus : status;
        }

        /** The value of {@code x-amzn-query-error}. */
        String queryErrorHeader() {
            return code + ";" + (senderFault ? "Sender" : "Receiver");
        }
    }

    private static final String SQS = "com.amazonaws.sqs#";
    private static final String CORAL = "com.amazon.coral.service#";

    private SqsErrors() {}

    static Written of(SqsRefusal.Reason reason) {
        return switch (reason) {
            case QUEUE_DOES_NOT_EXIST -> sender("QueueDoesNotExist", "AWS.SimpleQueueService.NonExistentQueue", 400);
            case QUEUE_NAME_EXISTS -> sender("QueueNameExists", "QueueAlreadyExists", 400);
            case INVALID_ATTRIBUTE_NAME -> same("InvalidAttributeName", 400);
            case INVALID_ATTRIBUTE_VALUE -> same("InvalidAttributeValue", 400);
            case INVALID_PARAMETER_VALUE -> same("InvalidParameterValue", 400);
            case MISSING_PARAMETER -> same("MissingParameter", 400);
            case INVALID_ACTION -> same("InvalidAction", 400);
            case MISSING_ACTION -> same("MissingAction", 400);
            case NO_SUCH_VERSION -> same("NoSuchVersion", 400);
            case MALFORMED_QUERY_STRING -> same("MalformedQueryString", 404);
            case SERIALIZATION -> new Written(CORAL + "SerializationException", "SerializationException", 400, true);
            case INVALID_ADDRESS -> modeled("InvalidAddress", "InvalidAddress", 404);
            case OVER_LIMIT -> modeled("OverLimit", "OverLimit", 403);
            case UNSUPPORTED_OPERATION -> sender(
                    "UnsupportedOperation", "AWS.SimpleQueueService.UnsupportedOperation", 400);
            case INVALID_CLIENT_TOKEN_ID -> same("InvalidClientTokenId", 403);
            case MISSING_AUTHENTICATION_TOKEN -> same("MissingAuthenticationToken", 403);
            case SIGNATURE_DOES_NOT_MATCH -> same("SignatureDoesNotMatch", 403);
            case INCOMPLETE_SIGNATURE -> same("IncompleteSignature", 400);
            case REQUEST_EXPIRED -> same("RequestExpired", 400);
            case ACCESS_DENIED -> same("AccessDenied", 403);
            case RECEIPT_HANDLE_IS_INVALID -> modeled("ReceiptHandleIsInvalid", "ReceiptHandleIsInvalid", 404);
            case BATCH_ENTRY_IDS_NOT_DISTINCT -> sender(
                    "BatchEntryIdsNotDistinct", "AWS.SimpleQueueService.BatchEntryIdsNotDistinct", 400);
            case EMPTY_BATCH_REQUEST -> sender("EmptyBatchRequest", "AWS.SimpleQueueService.EmptyBatchRequest", 400);
            case TOO_MANY_ENTRIES_IN_BATCH_REQUEST -> sender(
                    "TooManyEntriesInBatchRequest", "AWS.SimpleQueueService.TooManyEntriesInBatchRequest", 400);
            case INVALID_BATCH_ENTRY_ID -> sender(
                    "InvalidBatchEntryId", "AWS.SimpleQueueService.InvalidBatchEntryId", 400);
            case BATCH_REQUEST_TOO_LONG -> sender(
                    "BatchRequestTooLong", "AWS.SimpleQueueService.BatchRequestTooLong", 400);
            case INVALID_MESSAGE_CONTENTS -> same("InvalidMessageContents", 400);
            case MESSAGE_NOT_INFLIGHT -> sender("MessageNotInflight", "AWS.SimpleQueueService.MessageNotInflight", 400);
            case PURGE_QUEUE_IN_PROGRESS -> modeled(
                    "PurgeQueueInProgress", "AWS.SimpleQueueService.PurgeQueueInProgress", 403);
            case RESOURCE_NOT_FOUND -> modeled("ResourceNotFoundException", "ResourceNotFoundException", 404);
            case REQUEST_THROTTLED -> modeled("RequestThrottled", "RequestThrottled", 403);
            case SERVICE_UNAVAILABLE -> new Written(SQS + "ServiceUnavailable", "ServiceUnavailable", 503, false);
            case KMS_DISABLED -> sender("KmsDisabled", "KMS.DisabledException", 400);
            case INTERNAL_FAILURE -> new Written(SQS + "InternalFailure", "InternalFailure", 500, false);
                // AWS's common errors for a request the HTTP level refuses (its API references' "Common Errors").
            case REQUEST_ENTITY_TOO_LARGE -> new Written(
                    CORAL + "RequestEntityTooLargeException", "RequestEntityTooLargeException", 413, true);
            case REQUEST_TIMEOUT -> new Written(
                    CORAL + "RequestTimeoutException", "RequestTimeoutException", 408, true);
                // AWS has no error for a host it does not serve: Pigeon's own name, with the status RFC 9110 gives.
            case MISDIRECTED_REQUEST -> new Written(SQS + "MisdirectedRequest", "MisdirectedRequest", 421, true);
        };
    }

    private static Written same(String name, int status) {
        return sender(name, name, status);
    }

    /** An error of SQS's own model whose query status is not 400: JSON 1.0 answers it with 400. */
    private static Written modeled(String shape, String code, int queryStatus) {
        return new Written(SQS + shape, code, queryStatus, true, 400);
    }

    private static Written sender(String shape, String code, int status) {
        return new Written(SQS + shape, code, status, true);
    }
}
