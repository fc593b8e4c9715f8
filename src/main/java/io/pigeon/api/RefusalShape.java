package io.pigeon.api;

import io.vertx.core.http.HttpServerRequest;
import java.util.Map;
import java.util.Optional;

/**
 * A door that speaks a protocol of its own (the SQS API) and answers the shared layer's early refusals in it, so that
 * its clients read them as their SDKs expect. The door decides whether a request is its own from the request as the
 * router sees it (method, path and headers: the same test that routes it), never from the path alone. Found by CDI:
 * the shared layer names no door.
 */
public interface RefusalShape {

    /** The answer to {@code refusal} of {@code request} in this door's shape, or empty when the request is not its own. */
    Optional<Shaped> shape(HttpServerRequest request, EarlyRefusal refusal, String description);

    /** An answer as written: status, headers (the content type among them) and body. */
    record Shaped(int status, Map<String, String> headers, byte[] body) {}
}
