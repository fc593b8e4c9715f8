package io.pigeon.api.ws;

import io.quarkus.runtime.StartupEvent;
import io.quarkus.runtime.configuration.DurationConverter;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * The bounds of the Quarkus settings Pigeon's own bounds rest on, which are not Pigeon's mappings and so not checked
 * by {@link io.pigeon.config.SettingsCheck}: {@code quarkus.http.idle-timeout} above 0 (0 turns the idle timeout off, and it alone
 * bounds a kept-alive connection between requests), {@code quarkus.http.limits.max-connections} at least 1, and above
 * the websockets Pigeon may hold ({@code pigeon.websocket.max-sockets} + {@code pigeon.websocket.max-anonymous-sockets}),
 * so that sockets alone cannot take every connection and leave none for HTTP requests. A bad value stops the start with
 * one line naming the setting and its bound. Checked by the first observer of the start event, so after the database
 * was reached (SmallRye validates only Pigeon's own mapping before anything starts), yet before any request is served.
 */
@ApplicationScoped
public class ServerSettingsCheck {

    void check(@Observes @Priority(1) StartupEvent started, WebsocketSettings websocket) {
        List<String> problems = problems(ConfigProvider.getConfig(), websocket);
        if (!problems.isEmpty()) {
            throw new IllegalStateException("Bad settings: " + String.join("; ", problems));
        }
    }

    /** Each Quarkus setting out of its bound, as one line naming it and the bound; empty when all are within. */
    public static List<String> problems(Config config, WebsocketSettings websocket) {
        List<String> problems = new ArrayList<>();
        Optional<String> idle = config.getOptionalValue("quarkus.http.idle-timeout", String.class);
        idle.ifPresent(text -> {
            Duration timeout;
            try {
                timeout = DurationConverter.parseDuration(text.trim());
            } catch (RuntimeException notADuration) {
                timeout = null;
            }
            if (timeout == null || timeout.isNegative() || timeout.isZero()) {
                problems.add("quarkus.http.idle-timeout is " + text + "; it must be a duration above 0 (e.g. 120s)");
            }
        });
        Optional<Integer> connections = config.getOptionalValue("quarkus.http.limits.max-connections", Integer.class);
        if (connections.isPresent()) {
            int limit = connections.get();
            long sockets = (long) websocket.maxSockets() + websocket.maxAnonymousSockets();
            if (limit < 1) {
                problems.add("quarkus.http.limits.max-connections is " + limit + "; it must be at least 1");
            } else if (sockets >= limit) {
                problems.add("pigeon.websocket.max-sockets + pigeon.websocket.max-anonymous-sockets (" + sockets
                        + ") must be below quarkus.http.limits.max-connections (" + limit
                        + "), so that sockets leave connections for HTTP requests");
            }
        }
        return problems;
    }
}
