package io.pigeon.api.sqs;

import io.pigeon.queue.QueueName;
import io.pigeon.sqs.SqsRefusal;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.UUID;
import java.util.function.BooleanSupplier;

/**
 * What an action is given: its input, who is calling (the project and its account id) and where the caller reached
 * Pigeon (to write queue URLs). The queue an action acts on is found here, by the caller's account and the name its
 * URL gives, never by host: a URL naming another account names no queue of the caller's.
 */
public final class SqsCall {

    private final SqsRequest request;
    private final String project;
    private final String account;
    private final String origin;
    private final BooleanSupplier connected;
    private final String traceHeader;

    SqsCall(
            SqsRequest request,
            String project,
            String account,
            String origin,
            BooleanSupplier connected,
            String traceHeader) {
        this.request = request;
        this.traceHeader = traceHeader;
        this.project = project;
        this.account = account;
        this.origin = origin;
        this.connected = connected;
    }

    public SqsParameters parameters() {
        return request.parameters();
    }

    public String action() {
        return request.action();
    }

    public String project() {
        return project;
    }

    public String account() {
        return account;
    }

    /**
     * The request's {@code X-Amzn-Trace-Id} header (null: none, or more than one), which a send stores with each of its
     * messages that sends no {@code AWSTraceHeader} of its own, as SQS does.
     */
    public String traceHeader() {
        return traceHeader;
    }

    /** Whether the caller is still there to read the answer (a long poll taken for one that left is given back). */
    public BooleanSupplier connected() {
        return connected;
    }

    /**
     * The sender id SQS messages of this account are stored with ({@code SenderId}; Zaqar's {@code Client-ID} column):
     * the same for every request of the account, as AWS gives the account's own id.
     */
    public UUID senderId() {
        return UUID.nameUUIDFromBytes(("sqs-account:" + account).getBytes(StandardCharsets.UTF_8));
    }

    /** The URL of one of the caller's queues, on the host the caller reached. */
    public String queueUrl(QueueName queue) {
        return QueueUrls.url(origin, account, queue.value());
    }

    /**
     * The caller's queue that the request names: by its {@code QueueUrl} parameter (a URL, or the name alone), or by the queue path the request was
     * sent to; both given must name the same queue. {@code QueueDoesNotExist} for another account's, and for any
     * spelling but the one queue URLs are written in.
     */
    public QueueName queue() {
        Optional<String> url = parameters().string("QueueUrl");
        String path = request.queuePath();
        if (url.isEmpty() && path == null) {
            throw SqsRefusal.missingParameter("QueueUrl");
        }
        QueueUrls.Address named = url.isPresent() ? QueueUrls.ofUrl(url.get(), account) : QueueUrls.ofPath(path);
        if (path != null && !QueueUrls.ofPath(path).equals(named)) {
            throw SqsRefusal.queueDoesNotExist();
        }
        if (!named.account().equals(account)) {
            throw SqsRefusal.queueDoesNotExist();
        }
        return QueueName.stored(named.name());
    }
}
