package io.pigeon.sqs;

/**
 * A request the SQS API refuses, in SQS's own terms: which of AWS's errors it is (a {@link Reason}) and the message
 * the client reads. It names no HTTP status and no wire: the door ({@code io.pigeon.api.sqs.SqsErrors}) writes each
 * reason as AWS writes that error in each protocol, in one exhaustive table, as {@code Rejections} does for Zaqar.
 */
public class SqsRefusal extends RuntimeException {

    /** AWS's errors, by what they mean. */
    public enum Reason {
        /** The queue named does not exist for the caller (or names another account). */
        QUEUE_DOES_NOT_EXIST,
        /** CreateQueue of an existing queue with other attribute values. */
        QUEUE_NAME_EXISTS,
        /** An attribute name SQS does not know, or that Pigeon does not serve. */
        INVALID_ATTRIBUTE_NAME,
        /** An attribute's value out of its bounds or malformed. */
        INVALID_ATTRIBUTE_VALUE,
        /** A parameter's value out of its bounds or malformed. */
        INVALID_PARAMETER_VALUE,
        /** A required parameter is absent. */
        MISSING_PARAMETER,
        /** The action named is not one of SQS's. */
        INVALID_ACTION,
        /** The request names no action. */
        MISSING_ACTION,
        /** A query-protocol request names another API version than 2012-11-05. */
        NO_SUCH_VERSION,
        /** A query string or form body that cannot be decoded. */
        MALFORMED_QUERY_STRING,
        /** A JSON body that cannot be read as the action's input. */
        SERIALIZATION,
        /** A queue URL that is not a URL. */
        INVALID_ADDRESS,
        /** A count the caller must lower first (queues of a project, tags of a queue) is at its bound. */
        OVER_LIMIT,
        /** What the request asks for is not served on this queue or by Pigeon. */
        UNSUPPORTED_OPERATION,
        /** The access key id is not known. */
        INVALID_CLIENT_TOKEN_ID,
        /** The request carries no credentials. */
        MISSING_AUTHENTICATION_TOKEN,
        /** The signature does not match the request. */
        SIGNATURE_DOES_NOT_MATCH,
        /** The signature is not complete (a part of the Authorization header is missing). */
        INCOMPLETE_SIGNATURE,
        /** The request's date is too far from the server's. */
        REQUEST_EXPIRED,
        /** The caller may not do this. */
        ACCESS_DENIED,
        /** A receipt handle that is not one Pigeon issued for this queue. */
        RECEIPT_HANDLE_IS_INVALID,
        /** A batch whose entries share an id. */
        BATCH_ENTRY_IDS_NOT_DISTINCT,
        /** A batch with no entry. */
        EMPTY_BATCH_REQUEST,
        /** A batch of more than 10 entries. */
        TOO_MANY_ENTRIES_IN_BATCH_REQUEST,
        /** A batch entry id that breaks SQS's rule. */
        INVALID_BATCH_ENTRY_ID,
        /** A batch whose messages together are too long. */
        BATCH_REQUEST_TOO_LONG,
        /** A message body with characters SQS does not allow. */
        INVALID_MESSAGE_CONTENTS,
        /** ChangeMessageVisibility of a message that is not in flight. */
        MESSAGE_NOT_INFLIGHT,
        /** A second PurgeQueue of the queue within 60 seconds. */
        PURGE_QUEUE_IN_PROGRESS,
        /** A message move task that does not exist. */
        RESOURCE_NOT_FOUND,
        /** Too many requests: try again later. */
        REQUEST_THROTTLED,
        /** A dependency cannot answer now (the database); the same request may succeed later. */
        SERVICE_UNAVAILABLE,
        /** The queue seals its messages and the key to seal them with cannot be used now. */
        KMS_DISABLED,
        /** Pigeon failed; logged. */
        INTERNAL_FAILURE,
        /** The request body is past the deployment's bound (refused before it is read). */
        REQUEST_ENTITY_TOO_LARGE,
        /** The request body did not arrive in time. */
        REQUEST_TIMEOUT,
        /** The request names a host this deployment does not serve. */
        MISDIRECTED_REQUEST
    }

    private final Reason reason;

    public SqsRefusal(Reason reason, String message) {
        super(message, null, false, false);
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }

    public static SqsRefusal queueDoesNotExist() {
        return new SqsRefusal(Reason.QUEUE_DOES_NOT_EXIST, "The specified queue does not exist.");
    }

    public static SqsRefusal missingParameter(String name) {
        return new SqsRefusal(Reason.MISSING_PARAMETER, "The request must contain the parameter " + name + ".");
    }

    /** AWS's wording: the value, the parameter, then why. */
    public static SqsRefusal invalidParameter(String name, String value, String reason) {
        return new SqsRefusal(
                Reason.INVALID_PARAMETER_VALUE,
                "Value " + Printable.of(value) + " for parameter " + name + " is invalid. Reason: " + reason);
    }

    /** An {@code InvalidParameterValue} whose message the caller words in full. */
    public static SqsRefusal invalidValue(String message) {
        return new SqsRefusal(Reason.INVALID_PARAMETER_VALUE, message);
    }

    public static SqsRefusal invalidAttributeValue(String name, String reason) {
        return new SqsRefusal(
                Reason.INVALID_ATTRIBUTE_VALUE, "Invalid value for the parameter " + name + ". Reason: " + reason);
    }

    public static SqsRefusal unknownAttribute(String name) {
        return new SqsRefusal(Reason.INVALID_ATTRIBUTE_NAME, "Unknown Attribute " + Printable.of(name) + ".");
    }
}
