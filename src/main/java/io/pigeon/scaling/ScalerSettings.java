package io.pigeon.scaling;

import io.pigeon.config.PositiveDuration;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import jakarta.validation.constraints.Min;
import java.time.Duration;

/**
 * Pigeon as a KEDA external scaler (the gRPC server, {@code quarkus.grpc.server.port}): how many {@code
 * StreamIsActive} streams may be open, how often an open stream reads its queue again, and what a client can make
 * the port hold (connections, calls per connection, unread bytes, time to the first call and to a whole request).
 *
 * <p>Pigeon as a KEDA external scaler: read by the scaling domain and its gRPC door (io.pigeon.api.scaler). Its own
 * mapping, so that the feature that reads these keys owns them; the keys are unchanged ({@code pigeon.scaler.*},
 * env {@code PIGEON_SCALER_*}).
 */
@ConfigMapping(prefix = "pigeon.scaler")
public interface ScalerSettings {

    /** {@code StreamIsActive} streams open at once on this replica; one more is refused (RESOURCE_EXHAUSTED). */
    @WithDefault("1000")
    @Min(1)
    int maxStreams();

    /** Streams of one project open at once on this replica; one more is refused (RESOURCE_EXHAUSTED). */
    @WithDefault("100")
    @Min(1)
    int maxStreamsPerProject();

    /**
     * How often an open stream reads its queue's counts again (one statement), besides each time a post or a
     * release tells it that messages came free: how soon it reports a queue that emptied, or one created by its
     * first post.
     */
    @WithDefault("10s")
    @PositiveDuration
    Duration recheck();

    /**
     * A connection to the gRPC server with no call in flight for this long is closed (KEDA opens it again when
     * it next asks).
     */
    @WithDefault("5m")
    @PositiveDuration
    Duration idleTimeout();

    /**
     * Connections open at once on the gRPC port of this replica; one more is closed as soon as it is accepted.
     * KEDA's operator keeps one connection (its metrics server another).
     */
    @WithDefault("8")
    @Min(1)
    int maxConnections();

    /**
     * Connections open at once on the gRPC port from one remote address (its share of {@code max-connections}); one
     * more from that address is closed as soon as it is accepted, so one address cannot hold every place. At most
     * {@code max-connections}; behind a proxy every client has the proxy's address (docs/security.md).
     */
    @WithDefault("4")
    @Min(1)
    int maxConnectionsPerAddress();

    /**
     * A connection that has not opened its first call this long after it was accepted (whether or not it completed
     * its HTTP/2 handshake) is closed, and so is one whose handshake takes this long. KEDA calls as soon as it
     * connects; a short deadline makes silent connections cost their holder one new connection per place and
     * deadline. From 100 ms to 60 s.
     */
    @WithDefault("3s")
    @PositiveDuration
    Duration firstCallTimeout();

    /**
     * Calls in flight at once on one connection (HTTP/2's SETTINGS_MAX_CONCURRENT_STREAMS): a client opening one
     * more is refused with REFUSED_STREAM (a gRPC client waits for a free place). Each external-push ScaledObject
     * holds one stream on KEDA's connection, and its polls need room beside them.
     */
    @WithDefault("128")
    @Min(1)
    int maxCallsPerConnection();

    /**
     * Bytes a connection, and each of its calls, may send before the server has read them (HTTP/2's flow-control
     * window), instead of grpc-java's 1 MiB.
     */
    @WithDefault("65536")
    @Min(1)
    int flowControlWindow();

    /**
     * A call whose request (one message and the end of the client's side) has not arrived this long after the
     * call opened is ended DEADLINE_EXCEEDED, and the part of the message it held is freed.
     */
    @WithDefault("10s")
    @PositiveDuration
    Duration requestTimeout();
}
