package io.pigeon.sqs;

/**
 * A request the SQS surface refuses, as AWS names the refusal: the error code an SDK reads ({@code
 * InvalidParameterValue}, {@code ReceiptHandleIsInvalid}, ...) and a message naming the parameter and the bound. It
 * says nothing of HTTP or of either wire protocol: the SQS door ({@code io.pigeon.api.sqs}) writes it as JSON or XML
 * with the status AWS gives that code. Nothing stored has changed when one is thrown.
 */
public class SqsRefusal extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** The codes this domain refuses with, as AWS spells them. */
    public static final String INVALID_PARAMETER_VALUE = "InvalidParameterValue";

    public static final String MISSING_PARAMETER = "MissingParameter";
    public static final String INVALID_MESSAGE_CONTENTS = "InvalidMessageContents";
    public static final String RECEIPT_HANDLE_IS_INVALID = "ReceiptHandleIsInvalid";
    public static final String MESSAGE_NOT_INFLIGHT = "AWS.SimpleQueueService.MessageNotInflight";
    public static final String NON_EXISTENT_QUEUE = "AWS.SimpleQueueService.NonExistentQueue";
    public static final String BATCH_ENTRY_IDS_NOT_DISTINCT = "AWS.SimpleQueueService.BatchEntryIdsNotDistinct";
    public static final String EMPTY_BATCH_REQUEST = "AWS.SimpleQueueService.EmptyBatchRequest";
    public static final String TOO_MANY_ENTRIES_IN_BATCH_REQUEST =
            "AWS.SimpleQueueService.TooManyEntriesInBatchRequest";
    public static final String INVALID_BATCH_ENTRY_ID = "AWS.SimpleQueueService.InvalidBatchEntryId";
    public static final String BATCH_REQUEST_TOO_LONG = "AWS.SimpleQueueService.BatchRequestTooLong";
    public static final String KMS_DISABLED = "KMS.DisabledException";

    private final String code;

    public SqsRefusal(String code, String message) {
        super(message, null, false, false);
        this.code = code;
    }

    /**
     * AWS's error code as the query protocol writes it ({@code <Code>} in XML, the {@code x-amzn-query-error} header),
     * as the SDKs match it.
     */
    public String code() {
        return code;
    }

    /**
     * The error's shape in SQS's service model, which the JSON protocol names in {@code __type}: the code without
     * {@code AWS.SimpleQueueService.}, except {@code AWS.SimpleQueueService.NonExistentQueue}, which is {@code
     * QueueDoesNotExist}, and {@code KMS.DisabledException}, {@code KmsDisabled}. The codes the model has no shape for
     * ({@code InvalidParameterValue}, {@code MissingParameter}: AWS's common errors) are their own.
     */
    public String shape() {
        if (code.equals(NON_EXISTENT_QUEUE)) {
            return "QueueDoesNotExist";
        }
        if (code.equals(KMS_DISABLED)) {
            return "KmsDisabled";
        }
        String prefix = "AWS.SimpleQueueService.";
        return code.startsWith(prefix) ? code.substring(prefix.length()) : code;
    }

    static SqsRefusal invalidValue(String message) {
        return new SqsRefusal(INVALID_PARAMETER_VALUE, message);
    }
}
