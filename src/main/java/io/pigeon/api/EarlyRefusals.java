package io.pigeon.api;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;
import java.util.List;
import java.util.Optional;

/**
 * Writes the shared HTTP layer's early refusals ({@link EarlyRefusal}: a body too large, too slow, a host not served) in
 * the shape of the door the request belongs to: the shape a door offers ({@link RefusalShape}) when it claims the
 * request, else Pigeon's error document, byte for byte what Zaqar's clients always read. The refusals come before any
 * door has read the request, so a door's own client (an AWS SDK) would otherwise read an answer it cannot parse.
 */
@ApplicationScoped
public class EarlyRefusals {

    private final List<RefusalShape> shapes;

    EarlyRefusals(@Any Instance<RefusalShape> shapes) {
        this.shapes = shapes.stream().toList();
    }

    /** The door's answer to {@code refusal} of {@code request}, or empty when no door claims it. */
    public Optional<RefusalShape.Shaped> shaped(HttpServerRequest request, EarlyRefusal refusal, String description) {
        for (RefusalShape shape : shapes) {
            Optional<RefusalShape.Shaped> shaped = shape.shape(request, refusal, description);
            if (shaped.isPresent()) {
                return shaped;
            }
        }
        return Optional.empty();
    }

    /** Ends {@code request}'s answer with {@code refusal}, in its door's shape, and closes the connection. */
    public void refuse(HttpServerRequest request, EarlyRefusal refusal, String description) {
        HttpServerResponse response = request.response();
        Optional<RefusalShape.Shaped> shaped = shaped(request, refusal, description);
        if (shaped.isEmpty()) {
            new ErrorDocument(refusal.title(), description).endWithClose(response, refusal.status());
            return;
        }
        RefusalShape.Shaped answer = shaped.get();
        response.setStatusCode(answer.status());
        answer.headers().forEach(response::putHeader);
        response.putHeader(HttpHeaders.CONNECTION, "close").end(Buffer.buffer(answer.body()));
    }
}
