package io.pigeon.api;

import io.pigeon.config.CheckedSettings;
import io.pigeon.config.ValidSettings;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import jakarta.validation.constraints.Min;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The HTTP port's own checks, ahead of every resource: which hosts it serves (io.pigeon.api.ServedHosts), how long
 * a request may take to arrive and how many connections one client source may hold
 * (io.pigeon.api.RequestDeadlines).
 *
 * <p>The HTTP port's own checks ahead of every resource (io.pigeon.api). Its own mapping, so that the feature that
 * reads these keys owns them; the keys are unchanged ({@code pigeon.http.*}, env {@code PIGEON_HTTP_*}).
 */
@ConfigMapping(prefix = "pigeon.http")
@ValidSettings
public interface HttpSettings extends CheckedSettings {

    /**
     * Host names requests may name ({@code Host}, or an absolute request target) besides those always served:
     * {@code localhost}, any IP address, and {@code quarkus.http.host} when it is a name. Exact names
     * ({@code queues.example.com}), {@code *.example.com} for every name below {@code example.com}, or {@code *}
     * alone for any host (behind an ingress that checks the host itself). A request naming another host is refused
     * with 421. Checked at start: an entry that is none of these stops it.
     */
    Optional<List<String>> allowedHosts();

    /**
     * A request head must have arrived whole within this long of its first byte (of the connection's accept, for
     * its first request); past it the connection is answered 408 and closed. Bytes trickled one at a time do not
     * extend it, unlike the idle timeout. From 1 s to 1 h.
     */
    @WithDefault("10s")
    Duration requestHeadTimeout();

    /**
     * A request body must have arrived whole within this long of the end of its head; past it the request is
     * answered 408 (or the connection cut, when an answer has begun) and the connection closed. Room for the
     * largest body (pigeon.max-request-body, 1 MiB) at 35 KB/s. From 1 s to 1 h.
     */
    @WithDefault("30s")
    Duration requestBodyTimeout();

    /**
     * Connections one client source (an IPv4 address, an IPv6 /64) may hold open at once on one replica; one more
     * is closed as soon as it is seen. 0 turns the share off: needed where every client comes through one proxy
     * address (docs/operations.md).
     */
    @WithDefault("512")
    @Min(0)
    int maxConnectionsPerAddress();

    @Override
    default List<String> problems() {
        List<String> problems = new ArrayList<>();
        for (String entry : allowedHosts().orElse(List.of())) {
            String trimmed = entry.strip();
            // A wildcard with one label after the star (*.com, *.localhost) would serve every name under a top-level
            // name, DNS rebinding for all of them (ServedHosts refuses it too; here it stops the start first).
            if (trimmed.startsWith("*.")
                    && trimmed.length() > 2
                    && !trimmed.substring(2).contains(".")) {
                problems.add("pigeon.http.allowed-hosts: '" + trimmed + "' covers every name under one label; a"
                        + " wildcard needs at least two labels after the star (*.example.com)");
            }
        }
        return problems;
    }
}
