package io.pigeon.dispatch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pigeon.encryption.MessageCipher;
import io.smallrye.mutiny.Uni;
import io.vertx.core.VertxException;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.SocketAddress;
import io.vertx.core.tracing.TracingPolicy;
import io.vertx.mutiny.core.Vertx;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.jboss.logging.Logger;

/**
 * Makes the call of a taken group: its method on its target, with the items' bodies as one JSON array (v3) or
 * the single body as it is (a subscription's notification). Only a 2xx answer counts as delivered.
 *
 * <p>Every call is bounded: the target's name is resolved here and the address is checked by
 * {@link AllowedTargets} and then connected to as it is (no second lookup); the whole call, resolution
 * included, ends at {@code pigeon.dispatch.call-timeout} whatever the target does; the answer's body is read
 * and dropped, at most {@link #MAX_ANSWER_BYTES}. A call to an address past its call rate ({@link HostRates}) is
 * not made but deferred. Every call carries the deployment's {@link CallMarker}. The error a tenant sees says
 * only what kind of failure it was (a status class, a refused or failed connection, a timeout), never an internal
 * exception's text.
 */
@ApplicationScoped
public class DeliveryClient {

    private static final Logger LOG = Logger.getLogger(DeliveryClient.class);

    /** The group and attempt, so that a target can recognise a repeated call (after a lost answer). */
    public static final String GROUP_HEADER = "X-Pigeon-Group";

    public static final String ATTEMPT_HEADER = "X-Pigeon-Attempt";

    /** The W3C trace context of the message a notification is of, when it carries one (a call's and a mail's header). */
    public static final String TRACEPARENT_HEADER = "traceparent";

    public static final String TRACESTATE_HEADER = "tracestate";

    /** Answer bytes read (and dropped) before the connection is closed instead. */
    static final int MAX_ANSWER_BYTES = 64 * 1024;

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Vertx vertx;
    private final HttpClient client;
    private final AllowedTargets allowedTargets;
    private final MessageCipher cipher;
    private final CallMarker marker;
    private final HostRates<InetAddress> hostRates;
    private final long callTimeoutMillis;
    private final long readTimeoutMillis;

    /**
     * How a call ended; a failure that is not {@code retryable} moves the group to the dead state at once. A call
     * {@code deferredMillis} above 0 was not made (its target address had no room in its call rate): it is tried
     * again after that long, and that costs it no attempt.
     */
    public record Outcome(boolean delivered, boolean retryable, String error, long deferredMillis) {
        static final Outcome DELIVERED = new Outcome(true, false, null, 0);

        static Outcome failed(String error) {
            return new Outcome(false, true, error, 0);
        }

        static Outcome refused(String error) {
            return new Outcome(false, false, error, 0);
        }

        static Outcome deferred(long millis) {
            return new Outcome(false, true, null, millis);
        }

        public boolean deferred() {
            return deferredMillis > 0;
        }
    }

    /** The call did not finish within the deadline. */
    static final class CallTimedOut extends TimeoutException {
        CallTimedOut() {
            super("the call did not finish within pigeon.dispatch.call-timeout");
        }
    }

    public DeliveryClient(
            Vertx vertx,
            DispatchSettings dispatch,
            AllowedTargets allowedTargets,
            MessageCipher cipher,
            CallMarker marker) {
        this.cipher = cipher;
        this.marker = marker;
        this.hostRates = new HostRates<>(dispatch.maxCallsPerHostPerSecond(), System::nanoTime);
        this.vertx = vertx;
        this.allowedTargets = allowedTargets;
        this.callTimeoutMillis = dispatch.callTimeout().toMillis();
        this.readTimeoutMillis = dispatch.readTimeout().toMillis();
        this.client = vertx.getDelegate()
                .createHttpClient(new HttpClientOptions()
                        .setConnectTimeout((int) Math.min(
                                Integer.MAX_VALUE, dispatch.connectTimeout().toMillis()))
                        .setMaxPoolSize(dispatch.maxConcurrency())
                        .setKeepAlive(true)
                        // A call carries its message's traceparent, set by Pigeon (decision 0022); Vert.x's own
                        // client tracing would start a trace of its own and overwrite that header.
                        .setTracingPolicy(TracingPolicy.IGNORE)
                        // TLS checks the certificate against the target's name, not the checked address connected to.
                        .setVerifyHost(true));
    }

    @PreDestroy
    void close() {
        client.close();
    }

    /** The call of {@code group}; never fails: every failure is an {@link Outcome}. */
    public Uni<Outcome> call(DispatchStore.TakenGroup group) {
        return Uni.createFrom()
                .deferred(() -> {
                    URI target = URI.create(group.target());
                    String refusal = allowedTargets.listRefusal(target);
                    if (refusal != null) {
                        // The lists may have changed since the target was stored: such a group is not called, nor
                        // retried.
                        // (Its address, literal or resolved, is checked by resolve().)
                        return Uni.createFrom().item(Outcome.refused("target not allowed"));
                    }
                    int port = AllowedTargets.port(target);
                    // Opened here, so that a body that does not open fails this call alone (retried by its policy: the
                    // operator may yet configure the missing key).
                    byte[] payload = payloadOf(cipher, group);
                    return resolve(target, port).flatMap(address -> {
                        if (address == null) {
                            return Uni.createFrom().item(Outcome.refused("target not allowed"));
                        }
                        long wait = hostRates.admit(address);
                        if (wait > 0) {
                            return Uni.createFrom().item(Outcome.deferred(wait));
                        }
                        return marker.value().flatMap(marked -> send(group, payload, target, address, port, marked));
                    });
                })
                .ifNoItem()
                .after(Duration.ofMillis(callTimeoutMillis))
                .failWith(CallTimedOut::new)
                .onFailure()
                .recoverWithItem(failure -> {
                    LOG.debugf("Group %d: call failed: %s", group.id(), failure.toString());
                    return Outcome.failed(describe(failure));
                });
    }

    /**
     * The first resolved address that calls may reach (null when none may): an IP literal as it is, a name
     * resolved off the event loop.
     */
    private Uni<InetAddress> resolve(URI target, int port) {
        String host = AllowedTargets.host(target);
        byte[] literal = AllowedTargets.ipLiteral(host);
        if (literal != null) {
            return Uni.createFrom().item(() -> {
                try {
                    return allowedTargets.choose(new InetAddress[] {InetAddress.getByAddress(literal)}, port);
                } catch (UnknownHostException e) {
                    throw new ConnectionFailed();
                }
            });
        }
        return vertx.executeBlocking(
                Uni.createFrom().item(() -> {
                    InetAddress[] resolved;
                    try {
                        resolved = InetAddress.getAllByName(host);
                    } catch (UnknownHostException e) {
                        throw new ConnectionFailed();
                    }
                    return allowedTargets.choose(resolved, port);
                }),
                false);
    }

    /**
     * The body to send: as stored, with a sealed message's text (a JSON string in it) replaced by the opened body (a
     * webhook's call and a mail alike).
     */
    static byte[] payloadOf(MessageCipher cipher, DispatchStore.TakenGroup group) {
        if (group.sealedKeyId() == null) {
            return group.payload();
        }
        String opened = cipher.open(group.project(), group.sealedKeyId(), group.sealedBody());
        // The sealed text is base64 of a random nonce and more: it cannot occur in the document by chance, and
        // base64 needs no escaping inside a JSON string.
        return new String(group.payload(), StandardCharsets.UTF_8)
                .replace("\"" + group.sealedBody() + "\"", opened)
                .getBytes(StandardCharsets.UTF_8);
    }

    private Uni<Outcome> send(
            DispatchStore.TakenGroup group, byte[] payload, URI target, InetAddress address, int port, String marked) {
        AtomicReference<HttpClientRequest> sent = new AtomicReference<>();
        AtomicBoolean ended = new AtomicBoolean();
        return Uni.createFrom()
                .<Outcome>emitter(emitter -> {
                    RequestOptions options = new RequestOptions()
                            .setMethod(HttpMethod.valueOf(group.method()))
                            .setServer(SocketAddress.inetSocketAddress(new InetSocketAddress(address, port)))
                            .setHost(AllowedTargets.host(target))
                            .setPort(port)
                            .setSsl("https".equalsIgnoreCase(target.getScheme()))
                            .setURI(pathAndQuery(target))
                            .setFollowRedirects(false)
                            .setIdleTimeout(readTimeoutMillis)
                            .putHeader("User-Agent", "pigeon")
                            .putHeader("Content-Type", "application/json");
                    extraHeaders(group.headersJson(), options);
                    options.putHeader(GROUP_HEADER, Long.toString(group.id()));
                    options.putHeader(ATTEMPT_HEADER, Integer.toString(group.attempts()));
                    options.putHeader(CallMarker.HEADER, marked);
                    if (group.traceparent() != null) {
                        // The notified message's trace context (W3C), set last: a subscriber's own header loses,
                        // and so does its tracestate, which belongs to its own traceparent, not to this one.
                        options.removeHeader(TRACESTATE_HEADER);
                        options.putHeader(TRACEPARENT_HEADER, group.traceparent());
                    }
                    client.request(options).onComplete(requested -> {
                        if (requested.failed()) {
                            emitter.fail(requested.cause());
                            return;
                        }
                        HttpClientRequest request = requested.result();
                        sent.set(request);
                        request.send(Buffer.buffer(payload)).onComplete(answered -> {
                            if (answered.failed()) {
                                emitter.fail(answered.cause());
                                return;
                            }
                            HttpClientResponse response = answered.result();
                            Outcome outcome = outcomeOf(response.statusCode());
                            long[] read = {0};
                            response.handler(chunk -> {
                                read[0] += chunk.length();
                                if (read[0] > MAX_ANSWER_BYTES) {
                                    // Enough: the status decided the outcome, the rest is not worth a connection.
                                    emitter.complete(outcome);
                                }
                            });
                            response.exceptionHandler(failure -> emitter.complete(outcome));
                            response.endHandler(done -> {
                                ended.set(true);
                                emitter.complete(outcome);
                            });
                        });
                    });
                })
                .onTermination()
                .invoke(() -> {
                    // Timed out, or the answer was cut short: close the exchange so that nothing lingers.
                    HttpClientRequest request = sent.get();
                    if (request != null && !ended.get()) {
                        request.reset();
                    }
                });
    }

    private static String pathAndQuery(URI target) {
        String path = target.getRawPath() == null || target.getRawPath().isEmpty() ? "/" : target.getRawPath();
        return target.getRawQuery() == null ? path : path + "?" + target.getRawQuery();
    }

    /** A subscriber's extra headers; any that HTTP or Pigeon's rules refuse are left out (they were checked when stored). */
    private static void extraHeaders(String headersJson, RequestOptions options) {
        if (headersJson == null) {
            return;
        }
        JsonNode headers;
        try {
            headers = JSON.readTree(headersJson);
        } catch (IOException e) {
            return;
        }
        if (headers == null || !headers.isObject()) {
            return;
        }
        int count = 0;
        for (Map.Entry<String, JsonNode> header : headers.properties()) {
            if (count++ >= CallHeaders.MAX_HEADERS) {
                return;
            }
            if (header.getValue().isTextual()
                    && CallHeaders.refusal(header.getKey(), header.getValue().asText()) == null) {
                options.putHeader(header.getKey(), header.getValue().asText());
            }
        }
    }

    static Outcome outcomeOf(int status) {
        if (status >= 200 && status < 300) {
            return Outcome.DELIVERED;
        }
        return Outcome.failed("HTTP " + (status / 100) + "xx");
    }

    /** What a tenant may know of a failure: its kind, never a message that describes the network inside. */
    static String describe(Throwable failure) {
        if (failure instanceof MessageCipher.Unreadable) {
            LOG.error(failure.getMessage());
            return "sealed message does not open";
        }
        if (failure instanceof TimeoutException
                || failure.getClass().getSimpleName().contains("Timeout")) {
            return "timed out";
        }
        if (failure instanceof ConnectionFailed
                || failure instanceof ConnectException
                || failure instanceof VertxException
                || failure instanceof IOException) {
            return "connection failed";
        }
        return "call failed";
    }

    /** The target's name did not resolve. */
    static final class ConnectionFailed extends RuntimeException {
        ConnectionFailed() {
            super("connection failed", null, false, false);
        }
    }
}
