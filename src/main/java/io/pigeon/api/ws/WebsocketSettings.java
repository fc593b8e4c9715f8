package io.pigeon.api.ws;

import io.pigeon.config.PositiveDuration;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import jakarta.validation.constraints.Min;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Zaqar's WebSocket transport (io.pigeon.api.ws): what one socket, one project and one replica may hold.
 *
 * <p>What one socket, one project and one replica may hold on Zaqar's WebSocket transport (io.pigeon.api.ws). Its
 * own mapping, so that the feature that reads these keys owns them; the keys are unchanged ({@code
 * pigeon.websocket.*}, env {@code PIGEON_WEBSOCKET_*}).
 */
@ConfigMapping(prefix = "pigeon.websocket")
public interface WebsocketSettings {

    /**
     * Request frames a socket may have sent and not yet had answered: they are answered one at a time, in order,
     * and one more than this closes the socket with 1008.
     */
    @WithDefault("16")
    @Min(1)
    int maxFramesInFlight();

    /**
     * Open sockets on one replica that act for someone: with OIDC, those that authenticated; with authentication
     * off, every socket. Past it the upgrade is refused with 503.
     */
    @WithDefault("3000")
    @Min(1)
    int maxSockets();

    /**
     * With OIDC, sockets on one replica that have not authenticated yet: past it the one that has waited longest
     * without authenticating is closed (1008) to make room for the new one, so that sockets which never
     * authenticate cannot keep a client that does so at once from upgrading.
     */
    @WithDefault("500")
    @Min(1)
    int maxAnonymousSockets();

    /**
     * Sockets one client source (an IPv4 address, an IPv6 /64) may hold open at once on one replica; past it the
     * upgrade is refused with 503. 0 turns the share off (every client through one proxy address).
     */
    @WithDefault("256")
    @Min(0)
    int maxSocketsPerAddress();

    /**
     * Sockets on one replica that may act for one project; a frame that would make one more closes its socket with
     * 1008.
     */
    @WithDefault("1000")
    @Min(1)
    int maxSocketsPerProject();

    /**
     * How often the server pings each socket (the pongs, like frames, show the client is there). Sets
     * quarkus.websockets-next.server.auto-ping-interval.
     */
    @WithDefault("30s")
    @PositiveDuration
    Duration pingInterval();

    /** A socket from which nothing (no frame, no pong) came for this long is closed with 1001. */
    @WithDefault("120s")
    @PositiveDuration
    Duration idleTimeout();

    /**
     * Bytes of notification frames a socket may have waiting to be written (a client that does not read them);
     * one more closes the socket with 1008. Room for a burst of several full posts (262144 bytes each).
     */
    @WithDefault("4194304")
    @Min(1)
    int maxPendingNotificationBytes();

    /**
     * Bytes of request frames one socket may have sent and not yet had answered; a frame past it is not taken,
     * the frames taken are answered, and the socket is closed with 1008. Room for several full posts.
     */
    @WithDefault("4194304")
    @Min(1)
    int maxHeldBytesPerSocket();

    /**
     * Bytes of request frames waiting for their answers and of answers waiting to be written, over all the
     * sockets of one replica: a frame or an answer past it closes its socket with 1013 (try again later), so that
     * sockets whose clients do not read cannot fill the heap together.
     */
    @WithDefault("134217728")
    @Min(1)
    long maxHeldBytes();

    /**
     * With OIDC, a socket that has not authenticated, and has had no frame served by a pre-signed grant, for this
     * long is closed with 1008: it would hold a socket of the replica's bound for nobody.
     */
    @WithDefault("10s")
    @PositiveDuration
    Duration authenticationTimeout();

    /**
     * Bytes of websocket messages that have begun to arrive and not yet ended (held by Netty and Vert.x before
     * Pigeon sees a message), over all the sockets of one replica, counted as the buffers holding them lie (Netty's
     * by its capacity, Vert.x's fragments twice over): a socket whose bytes would pass it is closed with 1013.
     */
    @WithDefault("67108864")
    @Min(1)
    long maxArrivingBytes();

    /**
     * A socket holding part of a message must finish a message within this long, or it is closed with 1008: a
     * client trickling a message, or stopping halfway while it answers pings, cannot keep the room it holds.
     */
    @WithDefault("20s")
    @PositiveDuration
    Duration messageArrivalTimeout();

    /**
     * Origins ({@code https://app.example.com}, {@code http://localhost:3000}) of the web pages that may open a
     * socket, besides Pigeon's own origin (an {@code Origin} naming the host and port of the request's
     * {@code Host}), or {@code *} alone for any page. An upgrade carrying any other {@code Origin}, {@code null}
     * included, is refused with 403; one carrying none (not a browser) is not looked at. Checked at start: an entry
     * that is not {@code http(s)://host[:port]} stops it.
     */
    Optional<List<String>> allowedOrigins();
}
