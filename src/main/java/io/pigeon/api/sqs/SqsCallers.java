package io.pigeon.api.sqs;

import io.pigeon.accesskeys.AccessKeyService;
import io.pigeon.accesskeys.SignedCaller;
import io.pigeon.accesskeys.SignedRequest;
import io.pigeon.sqs.SqsRefusal;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Which project an SQS request acts for. SQS names no project: the access key that signed the request does. Every
 * request passes {@link AccessKeyService#verify}, which checks its Signature Version 4 against the key's secret (or,
 * with {@code pigeon.auth.mode=none}, takes the access key id as the project's id unchecked and says so loudly at
 * start); a refusal becomes the error AWS answers with, in the request's protocol.
 */
@ApplicationScoped
public class SqsCallers {

    private final AccessKeyService accessKeys;

    SqsCallers(AccessKeyService accessKeys) {
        this.accessKeys = accessKeys;
    }

    /** The project whose key signed {@code request}, or a failure with AWS's refusal. */
    Uni<String> project(SignedRequest request) {
        return accessKeys.verify(request).map(SqsCallers::projectOf);
    }

    private static String projectOf(SignedCaller caller) {
        if (!caller.accepted()) {
            throw new SqsRefusal(SqsRefusal.Reason.valueOf(caller.refusal().name()), caller.message());
        }
        return caller.project();
    }
}
