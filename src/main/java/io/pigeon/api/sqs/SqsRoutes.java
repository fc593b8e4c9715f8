package io.pigeon.api.sqs;

import io.pigeon.accesskeys.Accounts;
import io.pigeon.accesskeys.SignedRequest;
import io.pigeon.api.RefusalShape;
import io.pigeon.sqs.SqsRefusal;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.subscription.Cancellable;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.RequestBody;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.List;
import java.util.UUID;

/**
 * The SQS API on the main port (decision 0017): a route ahead of the REST layer that takes the requests
 * {@link SqsRequests} recognises as SQS and lets every other go on untouched. It runs after the host check, the request
 * deadlines and {@code RequestBodyLimit} (a body past {@code pigeon.max-request-body} never reaches it; a streamed one
 * arrives read), reads the body, decides the caller ({@link SqsCallers}) and its account ({@link Accounts}), runs the
 * action ({@link SqsActions}) and writes the answer or the error in the request's own protocol ({@link SqsWire}).
 */
@ApplicationScoped
public class SqsRoutes {

    private static final String REQUEST_ID = SqsRefusalShape.REQUEST_ID;

    /** The one action that may wait for messages. */
    private static final String WAITS = "ReceiveMessage";
    /** AWS X-Ray's HTTP trace header, which SQS applies to every message of a send (X-Ray developer guide, SQS). */
    private static final String TRACE_HEADER = "X-Amzn-Trace-Id";

    private final SqsCallers callers;
    private final Accounts accounts;
    private final SqsActions actions;
    private final SqsFailures failures;

    SqsRoutes(SqsCallers callers, Accounts accounts, SqsActions actions, SqsFailures failures) {
        this.callers = callers;
        this.accounts = accounts;
        this.actions = actions;
        this.failures = failures;
    }

    /** After RequestBodyLimit (MIN_VALUE + 2), ahead of the REST layer. */
    void install(@Observes Router router) {
        router.route().order(Integer.MIN_VALUE + 3).handler(this::route);
    }

    void route(RoutingContext context) {
        HttpServerRequest request = context.request();
        SqsProtocol protocol = SqsRequests.protocolOf(request);
        if (protocol == null) {
            context.next();
            return;
        }
        RequestBody read = context.body();
        Buffer streamed = read == null ? null : read.buffer();
        if (streamed != null || request.isEnded()) {
            serve(context, protocol, streamed == null ? new byte[0] : streamed.getBytes());
            return;
        }
        if ("100-continue".equalsIgnoreCase(request.getHeader("Expect"))) {
            context.response().writeContinue(); // the body was found within the bound: the client may send it
        }
        request.body().onComplete(body -> {
            if (body.succeeded()) {
                serve(context, protocol, body.result().getBytes());
            } else if (!context.response().ended()) {
                context.response().setStatusCode(400).end();
            }
        });
        request.resume();
    }

    private void serve(RoutingContext context, SqsProtocol protocol, byte[] body) {
        String requestId = UUID.randomUUID().toString();
        HttpServerRequest http = context.request();
        SqsRequest request;
        try {
            request = SqsRequests.read(protocol, http, body, requestId);
        } catch (SqsRefusal refused) {
            writeError(context, protocol, requestId, refused);
            return;
        }
        SignedRequest signed = SignedRequest.ofHeaderLines(
                http.method().name(),
                http.path(),
                http.query(),
                List.copyOf(http.headers().entries()),
                body);
        String origin = origin(http);
        Cancellable running = Uni.createFrom()
                .deferred(() -> callers.project(signed))
                .flatMap(project -> accounts.accountOf(project)
                        .map(account -> new SqsCall(
                                request,
                                project,
                                account,
                                origin,
                                () -> !context.response().closed(),
                                traceHeader(http))))
                .flatMap(call -> actions.find(request.action()).answer(call))
                .subscribe()
                .with(
                        answer -> write(context, request, answer),
                        failure -> writeError(context, protocol, requestId, failures.refusal(failure)));
        if (WAITS.equals(request.action())) {
            leaveWhenClosed(context, running);
        }
    }

    /**
     * A receive may wait ({@code WaitTimeSeconds}): when its client closes the connection first, the wait is cancelled
     * at once, which frees its place under the waiter bounds and claims nothing more for it (a claim a try had already
     * made is given back, see QueueWaits). Registered for receives only: no other action waits, and no other request
     * pays for a close handler. A receive whose messages were claimed before the connection closed cannot be answered:
     * they come free when their visibility timeout ends, as SQS's do when its answer is lost.
     */
    private static void leaveWhenClosed(RoutingContext context, Cancellable running) {
        if (context.response().closed()) {
            running.cancel(); // closed while its body was read
            return;
        }
        context.addEndHandler(ended -> {
            if (ended.failed()) { // closed before its answer was written
                running.cancel();
            }
        });
    }

    private static void write(RoutingContext context, SqsRequest request, SqsAnswer answer) {
        HttpServerResponse response = context.response();
        if (response.ended() || response.closed()) {
            return;
        }
        response.putHeader(REQUEST_ID, request.requestId());
        if (request.protocol() == SqsProtocol.JSON) {
            response.putHeader("Content-Type", SqsWire.JSON_TYPE).end(SqsWire.json(answer));
        } else {
            response.putHeader("Content-Type", SqsWire.XML_TYPE)
                    .end(SqsWire.xml(request.action(), answer, request.requestId()));
        }
    }

    private static void writeError(RoutingContext context, SqsProtocol protocol, String requestId, SqsRefusal refused) {
        HttpServerResponse response = context.response();
        if (response.ended() || response.closed()) {
            return;
        }
        RefusalShape.Shaped error = SqsRefusalShape.error(protocol, requestId, refused);
        response.setStatusCode(error.status());
        error.headers().forEach(response::putHeader);
        response.end(Buffer.buffer(error.body()));
    }

    /** The request's one {@code X-Amzn-Trace-Id} header; null for none or several. */
    private static String traceHeader(HttpServerRequest http) {
        List<String> headers = http.headers().getAll(TRACE_HEADER);
        return headers.size() == 1 ? headers.get(0) : null;
    }

    /**
     * {@code scheme://host[:port]} as the caller reached Pigeon: the request's authority and scheme, which are the
     * forwarded ones when the HTTP layer is told to trust a proxy's ({@code quarkus.http.proxy.*}), else the
     * {@code Host} header the host check let through.
     */
    static String origin(HttpServerRequest request) {
        String scheme = request.scheme() == null ? "http" : request.scheme();
        String host = request.authority() != null ? request.authority().toString() : request.getHeader("Host");
        return scheme + "://" + (host == null || host.isEmpty() ? "localhost" : host);
    }
}
