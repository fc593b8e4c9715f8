package io.pigeon.dispatch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pigeon.config.PigeonConfig;
import io.smallrye.mutiny.Uni;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.client.WebClientOptions;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.core.buffer.Buffer;
import io.vertx.mutiny.ext.web.client.HttpRequest;
import io.vertx.mutiny.ext.web.client.WebClient;
import io.vertx.mutiny.ext.web.codec.BodyCodec;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.util.Iterator;
import java.util.Map;

/**
 * Makes the call of a taken group: its method on its target, with the items' bodies as one JSON array
 * (v3) or the single body as it is (a subscription's notification). Only a 2xx answer counts as
 * delivered. The answer's body is discarded unread, so a target cannot make Pigeon buffer it.
 */
@ApplicationScoped
public class DeliveryClient {

    /** The group and attempt, so that a target can recognise a repeated call (after a lost answer). */
    public static final String GROUP_HEADER = "X-Pigeon-Group";
    public static final String ATTEMPT_HEADER = "X-Pigeon-Attempt";

    private static final ObjectMapper JSON = new ObjectMapper();

    private final WebClient client;
    private final long readTimeoutMillis;

    /** How a call ended; a failure that is not {@code retryable} moves the group to the dead state at once. */
    public record Outcome(boolean delivered, boolean retryable, String error) {
        static final Outcome DELIVERED = new Outcome(true, false, null);

        static Outcome failed(String error) {
            return new Outcome(false, true, error);
        }

        static Outcome refused(String error) {
            return new Outcome(false, false, error);
        }
    }

    public DeliveryClient(Vertx vertx, PigeonConfig config) {
        PigeonConfig.Dispatch dispatch = config.dispatch();
        this.readTimeoutMillis = dispatch.readTimeout().toMillis();
        this.client = WebClient.create(vertx, new WebClientOptions()
                .setConnectTimeout((int) Math.min(Integer.MAX_VALUE, dispatch.connectTimeout().toMillis()))
                .setMaxPoolSize(dispatch.maxConcurrency())
                .setKeepAlive(true)
                .setFollowRedirects(false)
                .setUserAgent("pigeon"));
    }

    @PreDestroy
    void close() {
        client.close();
    }

    public Uni<Outcome> call(DispatchStore.TakenGroup group) {
        HttpRequest<Void> request = client.requestAbs(HttpMethod.valueOf(group.method()), group.target())
                .timeout(readTimeoutMillis)
                .putHeader("Content-Type", "application/json")
                .putHeader(GROUP_HEADER, Long.toString(group.id()))
                .putHeader(ATTEMPT_HEADER, Integer.toString(group.attempts()))
                .as(BodyCodec.none());
        extraHeaders(group.headersJson()).forEachRemaining(header -> {
            if (header.getValue().isTextual()) {
                request.putHeader(header.getKey(), header.getValue().asText());
            }
        });
        return request.sendBuffer(Buffer.buffer(body(group)))
                .map(response -> response.statusCode() >= 200 && response.statusCode() < 300
                        ? Outcome.DELIVERED
                        : Outcome.failed("HTTP " + response.statusCode()))
                .onFailure().recoverWithItem(failure -> Outcome.failed(describe(failure)));
    }

    static String body(DispatchStore.TakenGroup group) {
        if (group.envelope().equals("single")) {
            return group.bodies()[0];
        }
        return "[" + String.join(",", group.bodies()) + "]";
    }

    private static Iterator<Map.Entry<String, JsonNode>> extraHeaders(String headersJson) {
        if (headersJson == null) {
            return java.util.Collections.emptyIterator();
        }
        try {
            return JSON.readTree(headersJson).properties().iterator();
        } catch (IOException e) {
            return java.util.Collections.emptyIterator();
        }
    }

    private static String describe(Throwable failure) {
        String message = failure.getMessage();
        String kind = failure instanceof java.util.concurrent.TimeoutException ? "timeout" : failure.getClass().getSimpleName();
        return message == null ? kind : kind + ": " + (message.length() > 500 ? message.substring(0, 500) : message);
    }
}
