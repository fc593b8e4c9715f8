package io.pigeon.api.sqs;

import io.pigeon.api.EarlyRefusal;
import io.pigeon.api.RefusalShape;
import io.pigeon.sqs.SqsRefusal;
import io.vertx.core.http.HttpServerRequest;
import jakarta.enterprise.context.ApplicationScoped;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * Answers the shared HTTP layer's early refusals (a body too large or too slow, a host not served) of an SQS request as
 * AWS writes an error in the request's protocol, so that an SDK reads an error code where it would otherwise find
 * Zaqar's document and report an unparseable answer. The request is SQS's by the same test that routes it
 * ({@link SqsRequests#protocolOf}: method, path and headers), and the error is written by the same code as every
 * other SQS error ({@link #error}).
 */
@ApplicationScoped
public class SqsRefusalShape implements RefusalShape {

    static final String REQUEST_ID = "x-amzn-RequestId";

    @Override
    public Optional<Shaped> shape(HttpServerRequest request, EarlyRefusal refusal, String description) {
        SqsProtocol protocol = SqsRequests.protocolOf(request);
        if (protocol == null) {
            return Optional.empty();
        }
        SqsRefusal.Reason reason =
                switch (refusal) {
                    case TOO_LARGE -> SqsRefusal.Reason.REQUEST_ENTITY_TOO_LARGE;
                    case TIMEOUT -> SqsRefusal.Reason.REQUEST_TIMEOUT;
                    case MISDIRECTED -> SqsRefusal.Reason.MISDIRECTED_REQUEST;
                };
        return Optional.of(error(protocol, UUID.randomUUID().toString(), new SqsRefusal(reason, description)));
    }

    /** An SQS error as written in {@code protocol}: its status, headers and body. */
    static Shaped error(SqsProtocol protocol, String requestId, SqsRefusal refused) {
        SqsErrors.Written written = SqsErrors.of(refused.reason());
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put(REQUEST_ID, requestId);
        String body;
        if (protocol == SqsProtocol.JSON) {
            headers.put("x-amzn-query-error", written.queryErrorHeader());
            headers.put("Content-Type", SqsWire.JSON_TYPE);
            body = SqsWire.jsonError(written, SqsWire.message(refused));
        } else {
            headers.put("Content-Type", SqsWire.XML_TYPE);
            body = SqsWire.xmlError(written, SqsWire.queryMessage(refused), requestId);
        }
        return new Shaped(written.status(protocol), headers, body.getBytes(StandardCharsets.UTF_8));
    }
}
