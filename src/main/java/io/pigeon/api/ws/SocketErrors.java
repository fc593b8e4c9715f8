package io.pigeon.api.ws;

import io.pigeon.api.ApiException;
import io.pigeon.api.ErrorDocument;
import io.pigeon.api.ErrorMappers;
import io.pigeon.api.Rejections;
import io.pigeon.encryption.MessageCipher;
import io.pigeon.rules.Rejection;
import jakarta.ws.rs.core.Response;

/**
 * A failed request as Zaqar's websocket answers it, {@code {"exception": ..., "error": ...}}, with the status and
 * the text the HTTP API gives the same failure: a refusal by a rule maps through {@link Rejections}, anything else
 * through the HTTP error mappers (quotas, database failures, numbers out of range, unreadable messages; the
 * unexpected ones are logged there).
 */
final class SocketErrors {

    private static final ErrorMappers HTTP = new ErrorMappers();

    private SocketErrors() {}

    static SocketAnswer of(Throwable failure) {
        if (failure instanceof Rejection rejection) {
            return SocketAnswer.exception(
                    Rejections.answer(rejection.reason()).status(), rejection.description(), null);
        }
        if (failure instanceof ApiException refused) {
            return SocketAnswer.exception(refused.status(), refused.description(), null);
        }
        Response response = failure instanceof MessageCipher.Unreadable unreadable
                ? HTTP.unreadable(unreadable)
                : HTTP.unexpected(failure);
        int status = response.getStatus();
        String description = response.getEntity() instanceof ErrorDocument document
                ? document.description()
                : "An unexpected error occurred; it has been logged.";
        String title = response.getEntity() instanceof ErrorDocument document ? document.title() : "Unexpected error.";
        // As Zaqar, a failure of the server also says so in "error"; a refused request has only its exception.
        return SocketAnswer.exception(status, description, status >= 500 ? title : null);
    }
}
