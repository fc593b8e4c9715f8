package io.pigeon.api.ws;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.channel.Channel;
import io.pigeon.api.AddressShares;
import io.pigeon.api.ClosedConnections;
import io.pigeon.config.PigeonConfig;
import io.pigeon.subscription.SocketSubscriptions;
import io.pigeon.tenancy.SignedUrlSettings;
import io.quarkus.runtime.ShutdownDelayInitiatedEvent;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.websockets.next.CloseReason;
import io.quarkus.websockets.next.WebSocketConnection;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Vertx;
import io.vertx.core.WorkerExecutor;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.net.impl.ConnectionBase;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.jboss.logging.Logger;

/**
 * Zaqar's websocket transport behind the endpoints: one {@link SocketSession} per open socket, each request frame
 * decoded (text: JSON, binary: MessagePack), answered by {@link SocketActions} and the answer written in the frame's
 * own encoding, one answer per frame and in the order the frames came, whatever order the services finish in. The
 * bounds of {@code pigeon.websocket.*} are kept here: frames in flight per socket, sockets per replica (acting for
 * someone, and with OIDC those not yet authenticated, apart), per project and per client source, the idle and
 * authentication timeouts.
 *
 * <p>A frame is decoded and checked, and its answer encoded, on a small pool of worker threads of its own, never on the
 * event loop: a frame of a megabyte of one-byte values builds a tree of a million nodes, and an outside attack stalled
 * every request for seconds with a few sockets sending such frames. As each socket has one frame at a time being
 * answered, that pool's queue holds at most one task per open socket.
 */
@ApplicationScoped
public class SocketTransport {

    private static final Logger LOG = Logger.getLogger(SocketTransport.class);

    static final int GOING_AWAY = 1001;
    static final int POLICY_VIOLATION = 1008;
    static final int MESSAGE_TOO_BIG = 1009;
    static final int UNEXPECTED = 1011;
    static final int TRY_AGAIN_LATER = 1013;

    private final Map<String, SocketSession> sessions = new ConcurrentHashMap<>();
    /** With OIDC, the sockets that have not authenticated yet (max-anonymous-sockets). */
    private final Map<String, SocketSession> anonymous = new ConcurrentHashMap<>();
    /** Sockets that act for someone: authenticated ones with OIDC, every one without (max-sockets). */
    private final AtomicInteger acting = new AtomicInteger();
    /** Each client source's share of sockets (max-sockets-per-address). */
    private final AddressShares shares;
    /** Sockets of this replica acting for each project (guarded by itself). */
    private final Map<String, Integer> projectSockets = new HashMap<>();
    /** Guarded by {@code projectSockets}: sockets per pre-signed grant (signature), not counted for its project. */
    private final Map<String, Integer> grantSockets = new HashMap<>();

    private final SocketActions actions;
    private final SocketAuthentication authentication;
    private final SocketSubscriptions socketSubscriptions;
    private final WebsocketSettings limits;
    private final Vertx vertx;
    private final ArrivingMessages arriving;
    private final long maxMessageBytes;
    private final int maxSocketsPerGrant;
    /** Set once the replica starts shutting down: no socket is taken any more. */
    private volatile boolean stopping;
    /** Bytes of request frames in flight and of answers being written, over all sockets (max-held-bytes). */
    private final AtomicLong heldBytes = new AtomicLong();
    /** The most values (nodes) a frame may decode to. */
    private final int maxFrameValues;
    /** Where frames are decoded and answers encoded, off the event loops; one task per socket at a time. */
    private final WorkerExecutor frameWorkers;

    /** Threads decoding frames and encoding answers: as many as cores, so that they cannot take more. */
    static final int FRAME_WORKERS = Math.max(1, Runtime.getRuntime().availableProcessors());

    /** Values a frame may hold beside its largest document: the action, headers and the fields around the document. */
    static final int ENVELOPE_VALUES = 16_384;

    /**
     * The most values (containers and scalars) a frame may decode to: the largest document a frame legitimately
     * carries (a message post or queue metadata) holds at most one value per two bytes of its JSON ({@code [0,0,...]}),
     * plus {@link #ENVELOPE_VALUES}; with the defaults 147,456. It bounds what a frame costs to read to a small multiple
     * of its bytes, whatever values it holds.
     */
    static int maxFrameValues(PigeonConfig config) {
        return Math.max(config.maxMessagesPostSize(), config.maxQueueMetadata()) / 2 + ENVELOPE_VALUES;
    }

    /**
     * An error answer to a frame larger than this (bytes, or characters of a text frame) echoes only the frame's action,
     * when it is a short text, not its body nor headers: the answer to a refused frame stays small whatever was sent.
     */
    static final int MAX_ECHOED_FRAME = 4096;

    /** The longest action an error answer to a large frame echoes. */
    static final int MAX_ECHOED_ACTION = 64;

    SocketTransport(
            SocketActions actions,
            SocketAuthentication authentication,
            SocketSubscriptions socketSubscriptions,
            PigeonConfig config,
            SignedUrlSettings signedUrlSettings,
            WebsocketSettings websocketSettings,
            Vertx vertx,
            ArrivingMessages arriving) {
        this.actions = actions;
        this.authentication = authentication;
        this.socketSubscriptions = socketSubscriptions;
        this.limits = websocketSettings;
        this.vertx = vertx;
        this.arriving = arriving;
        this.maxMessageBytes = config.maxRequestBody();
        this.shares = new AddressShares(limits.maxSocketsPerAddress());
        this.maxSocketsPerGrant = signedUrlSettings.maxSocketsPerGrant();
        this.maxFrameValues = maxFrameValues(config);
        this.frameWorkers = vertx.createSharedWorkerExecutor("pigeon-socket-frames", FRAME_WORKERS);
    }

    /** Looks for idle and unauthenticated sockets a few times per timeout. */
    void start(@Observes StartupEvent started) {
        long shortest = Math.min(
                limits.idleTimeout().toMillis(), limits.authenticationTimeout().toMillis());
        long every = Math.max(1000, shortest / 4);
        vertx.setPeriodic(every, tick -> closeIdle());
    }

    /**
     * Closes every socket (1001) when the replica starts shutting down, and takes no new one: readiness is already
     * down, so clients reconnect to another replica. Each closed socket ends its upgraded request
     * ({@link UpgradedRequests}), so graceful shutdown does not wait for its timeout because of sockets.
     */
    void stop(@Observes ShutdownDelayInitiatedEvent shutdown) {
        stopping = true;
        closeAll();
    }

    /**
     * Without a shutdown delay this is the first word of shutdown. It waits (boundedly) for the close frames to go out
     * while the beans the sockets' callbacks need still exist.
     */
    void stop(@Observes ShutdownEvent shutdown) {
        stopping = true;
        closeAll();
        long deadline = System.nanoTime() + Duration.ofSeconds(2).toNanos();
        while (!sessions.isEmpty() && System.nanoTime() < deadline) {
            try {
                Thread.sleep(20);
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private void closeAll() {
        for (SocketSession session : sessions.values()) {
            close(session.connection(), GOING_AWAY, "The server is shutting down.");
        }
    }

    /**
     * Whether this replica takes no new socket, being full or shutting down: the upgrade is refused (503).
     */
    boolean full() {
        return stopping || acting.get() >= limits.maxSockets();
    }

    /**
     * Takes a place of the client source's share of sockets for an upgrade of {@code request}, given back when its
     * connection closes (an upgrade that fails later included); null when the source holds its share already.
     */
    AddressShares.Share share(HttpServerRequest request) {
        if (!shares.counted()) {
            return shares.take((String) null);
        }
        if (!(request.connection() instanceof ConnectionBase connection)) {
            return null;
        }
        Channel channel = connection.channel();
        AddressShares.Share share = shares.take(channel.remoteAddress());
        if (share != null) {
            channel.closeFuture().addListener(closed -> share.release());
        }
        return share;
    }

    /** Open sockets on this replica. */
    public int openSockets() {
        return sessions.size();
    }

    void opened(WebSocketConnection connection) {
        if (stopping) {
            close(connection, GOING_AWAY, "The server is shutting down.");
            return;
        }
        SocketSession session = new SocketSession(connection, limits.maxPendingNotificationBytes(), notificationRoom);
        authentication.opened(session);
        if (!authentication.tokensRequired()) {
            // Authentication off: every socket acts from its upgrade.
            if (!act()) {
                // Raced past the upgrade check with others.
                close(connection, POLICY_VIOLATION, "Too many sockets on this server.");
                return;
            }
            session.acting();
            sessions.put(connection.id(), session);
            return;
        }
        session.onFirstAuthentication(() -> authenticated(session));
        sessions.put(connection.id(), session);
        anonymous.put(connection.id(), session);
        if (anonymous.size() > limits.maxAnonymousSockets()) {
            makeRoomForAnonymous(session);
        }
    }

    /** Counts one more socket acting for someone; false (nothing counted) past max-sockets. */
    private boolean act() {
        if (acting.incrementAndGet() > limits.maxSockets()) {
            acting.decrementAndGet();
            return false;
        }
        return true;
    }

    static final String ROOM_FOR_ANONYMOUS =
            "Not authenticated, and the server made room for a socket that may authenticate.";

    /**
     * More sockets wait to authenticate than max-anonymous-sockets: the one other than {@code newest} that has waited
     * longest without authenticating (or being served by a pre-signed grant) is closed with 1008. A client that
     * authenticates as soon as it upgrades is never the one that waited longest, so sockets that never authenticate
     * cannot keep it out, however many they are.
     */
    private void makeRoomForAnonymous(SocketSession newest) {
        while (anonymous.size() > limits.maxAnonymousSockets()) {
            SocketSession oldest = null;
            for (SocketSession waiting : anonymous.values()) {
                if (waiting != newest
                        && (oldest == null || waiting.lastAdmittedNanos() - oldest.lastAdmittedNanos() < 0)) {
                    oldest = waiting;
                }
            }
            if (oldest == null || anonymous.remove(oldest.connection().id()) == null) {
                return;
            }
            close(oldest.connection(), POLICY_VIOLATION, ROOM_FOR_ANONYMOUS);
        }
    }

    /** {@code session} authenticated for the first time: it acts from now on, within max-sockets. */
    private void authenticated(SocketSession session) {
        if (anonymous.remove(session.connection().id()) == null) {
            return;
        }
        if (!act()) {
            close(session.connection(), TRY_AGAIN_LATER, "Too many sockets on this server; try again later.");
            return;
        }
        session.acting();
    }

    void text(WebSocketConnection connection, String frame) {
        received(
                connection,
                () -> FrameCodec.readText(frame, maxFrameValues),
                false,
                heldByText(frame.length()),
                frame.length() > MAX_ECHOED_FRAME);
    }

    void binary(WebSocketConnection connection, Buffer frame) {
        byte[] bytes = frame.getBytes();
        received(
                connection,
                () -> FrameCodec.readBinary(bytes, maxFrameValues),
                true,
                HELD_PER_BINARY_BYTE * bytes.length,
                bytes.length > MAX_ECHOED_FRAME);
    }

    /**
     * What a frame or an answer holds on the heap while it waits, counted against the bounds of bytes held: a text
     * is a Java string of two bytes per character and, once written, a buffer of its UTF-8 bytes as well (an outside
     * attack saw twice the bound held when only the characters were counted); binary, the array and its buffer.
     */
    private static final int HELD_PER_CHARACTER = 3;

    static final int HELD_PER_BINARY_BYTE = 2;

    static int heldByText(int characters) {
        return (int) Math.min(Integer.MAX_VALUE, (long) HELD_PER_CHARACTER * characters);
    }

    void pong(WebSocketConnection connection) {
        SocketSession session = sessions.get(connection.id());
        if (session != null) {
            session.heard();
        }
    }

    /** The socket is gone: its projects are released and the subscriptions it made for itself deleted. */
    void closed(WebSocketConnection connection) {
        Runnable endUpgrade = connection.userData().remove(UpgradedRequests.END);
        if (endUpgrade != null) {
            endUpgrade.run();
        }
        SocketSession session = sessions.remove(connection.id());
        if (session == null) {
            return;
        }
        anonymous.remove(connection.id());
        if (session.leaveActing()) {
            acting.decrementAndGet();
        }
        authentication.closed(session);
        synchronized (projectSockets) {
            for (String project : session.projects()) {
                projectSockets.computeIfPresent(project, (name, count) -> count > 1 ? count - 1 : null);
            }
            for (String grant : session.grants()) {
                grantSockets.computeIfPresent(grant, (signature, count) -> count > 1 ? count - 1 : null);
            }
        }
        if (session.hasSubscribed()) {
            socketSubscriptions
                    .forget(session.inbox())
                    .subscribe()
                    .with(
                            forgotten -> {},
                            failure -> LOG.warnf(
                                    "The subscriptions of closed socket %s were not deleted: %s",
                                    connection.id(), failure.toString()));
        }
    }

    /**
     * The socket failed below the frames: a message past the size bound (Vert.x refuses it while reading) closes it
     * with 1009; anything else (a text frame that is not UTF-8, ...) with 1011, logged.
     */
    void failed(WebSocketConnection connection, Throwable failure) {
        String message = failure.getMessage();
        if (failure instanceof IllegalStateException && message != null && message.contains("max message size")) {
            close(connection, MESSAGE_TOO_BIG, "A message may hold at most " + maxMessageBytes + " bytes.");
            return;
        }
        LOG.debugf("Socket %s failed: %s", connection.id(), failure);
        close(connection, UNEXPECTED, "The socket failed.");
    }

    private interface Decoder {
        JsonNode decode() throws FrameCodec.Undecodable;
    }

    /**
     * Takes a request frame of {@code bytes}, within the socket's bounds (frames and bytes in flight, 1008 past them)
     * and the replica's (bytes held, 1013 past it); past a bound the frames taken are answered before the close.
     */
    private void received(WebSocketConnection connection, Decoder frame, boolean binary, int bytes, boolean large) {
        SocketSession session = sessions.get(connection.id());
        if (session == null) {
            return;
        }
        if (!hold(bytes)) {
            session.refuseAfterAnswers(() -> close(connection, TRY_AGAIN_LATER, replicaBusy()));
            return;
        }
        SocketSession.Taken taken = session.received(
                () -> answer(session, frame, binary, bytes, large),
                bytes,
                limits.maxFramesInFlight(),
                limits.maxHeldBytesPerSocket());
        if (taken == SocketSession.Taken.TAKEN) {
            return;
        }
        release(bytes);
        switch (taken) {
            case TOO_MANY_FRAMES -> session.refuseAfterAnswers(() -> close(
                    connection,
                    POLICY_VIOLATION,
                    "Too many frames in flight: at most " + limits.maxFramesInFlight() + "."));
            case TOO_MANY_BYTES -> session.refuseAfterAnswers(() -> close(
                    connection,
                    POLICY_VIOLATION,
                    "Too many bytes of frames in flight: at most " + limits.maxHeldBytesPerSocket() + "."));
            default -> {
                // Dropped: the socket is closing already.
            }
        }
    }

    /** Counts bytes held by the replica's sockets; false (nothing counted) past pigeon.websocket.max-held-bytes. */
    private boolean hold(long bytes) {
        if (heldBytes.addAndGet(bytes) > limits.maxHeldBytes()) {
            heldBytes.addAndGet(-bytes);
            return false;
        }
        return true;
    }

    private void release(long bytes) {
        heldBytes.addAndGet(-bytes);
    }

    static final String NOTIFICATIONS_NOT_READ =
            "Notifications are not read, and the server holds too many unread ones; try again later.";

    /** A socket whose oldest unwritten notification has waited this long is behind: it may be closed for room. */
    static final long BEHIND_AFTER_NANOS = Duration.ofSeconds(1).toNanos();

    /**
     * Notifications share the replica's bytes held with frames and answers. One post reaches every socket subscribed
     * to its queue, so when the room is full it is made by closing sockets that do not read, never one that does:
     * <ol>
     *   <li>the sockets whose oldest unwritten notification has waited a second or more are closed (1013), oldest
     *       first, until they held as much as the new one;
     *   <li>when none has waited that long, the bytes are a burst sent to sockets that read: they are held, up to twice
     *       the bound (not counting what sockets already closed for room still hold);
     *   <li>past twice the bound the sockets that have waited longer than this one are closed, oldest first; when that
     *       is not enough this socket is closed itself.
     * </ol>
     * A closed socket's bytes come back as its writes fail, moments later; until then the replica holds them beside
     * what replaced them, which is why closing makes room past the bound.
     */
    private final SocketSession.NotificationRoom notificationRoom = new SocketSession.NotificationRoom() {

        @Override
        public boolean hold(SocketSession.SocketInbox inbox, long bytes) {
            if (SocketTransport.this.hold(bytes)) {
                return true;
            }
            long now = System.nanoTime();
            if (closeBehind(inbox, bytes, now - BEHIND_AFTER_NANOS)
                    || heldBytes.get() - leaving() + bytes <= 2 * limits.maxHeldBytes()
                    || closeBehind(inbox, bytes, inbox.waitingSince(now))) {
                heldBytes.addAndGet(bytes);
                return true;
            }
            return false;
        }

        @Override
        public void release(long bytes) {
            SocketTransport.this.release(bytes);
        }

        @Override
        public void closeReader(WebSocketConnection connection, int code, String reason) {
            close(connection, code, reason);
            String address = connection.handshakeRequest().remoteAddress();
            // Not isOpen(): it is false from the moment the close is asked for, sent or not. A connection that ended
            // meanwhile is no longer found.
            vertx.setTimer(READER_CLOSE_GRACE_MILLIS, timer -> arriving.abort(address));
        }
    };

    /**
     * How long a socket closed for not reading has to take its close frame before its connection is cut: the frame
     * waits behind everything it has not read, and until the connection ends the replica holds all of that.
     */
    static final long READER_CLOSE_GRACE_MILLIS = 1000;

    /** Bytes of notifications held for sockets closed to make room: they come back as those sockets' writes fail. */
    private long leaving() {
        long leaving = 0;
        for (SocketSession session : sessions.values()) {
            if (session.inbox().closing()) {
                leaving += session.inbox().pending();
            }
        }
        return leaving;
    }

    /**
     * Closes the sockets other than {@code inbox} whose oldest unwritten notification was queued before {@code before},
     * oldest first, until they held {@code bytes}: true when they did.
     */
    private boolean closeBehind(SocketSession.SocketInbox inbox, long bytes, long before) {
        long freed = 0;
        while (freed < bytes) {
            SocketSession.SocketInbox slowest = waitedLongest(inbox, before);
            if (slowest == null) {
                return false;
            }
            freed += slowest.pending();
            slowest.closeToMakeRoom(NOTIFICATIONS_NOT_READ);
        }
        return true;
    }

    /** The open socket other than {@code inbox} whose oldest unwritten notification was queued first, before {@code before}. */
    private SocketSession.SocketInbox waitedLongest(SocketSession.SocketInbox inbox, long before) {
        SocketSession.SocketInbox slowest = null;
        long since = before;
        for (SocketSession session : sessions.values()) {
            SocketSession.SocketInbox other = session.inbox();
            if (other == inbox || other.closing() || other.pending() == 0) {
                continue;
            }
            long waiting = other.waitingSince(since);
            if (waiting - since < 0) {
                slowest = other;
                since = waiting;
            }
        }
        return slowest;
    }

    private String replicaBusy() {
        return "The server holds too many unanswered frames and unread answers (" + limits.maxHeldBytes()
                + " bytes); try again later.";
    }

    /** Bytes of frames and answers the replica's sockets hold now (for tests). */
    long heldBytes() {
        return heldBytes.get();
    }

    /** A decoded frame: the request read from it, or the answer refusing it (with the request echoed). */
    private record Decoded(SocketRequest request, SocketAnswer refusal) {}

    /** Decodes and checks a frame; runs on {@link #frameWorkers}. */
    private static Decoded decode(Decoder frame, boolean binary) {
        try {
            JsonNode document = frame.decode();
            if (document instanceof ObjectNode object) {
                return new Decoded(SocketRequest.of(object, binary), null);
            }
            return new Decoded(
                    SocketRequest.unreadable(binary),
                    SocketAnswer.error(400, "Unexpected body type. Expected dict or dict like."));
        } catch (FrameCodec.Undecodable undecodable) {
            return new Decoded(SocketRequest.unreadable(binary), SocketAnswer.error(400, undecodable.getMessage()));
        }
    }

    /**
     * Answers one frame, then lets the socket's next frame be answered: it is decoded on {@link #frameWorkers}, and
     * carried out where that ends (the caller's Vert.x context), as before.
     */
    private void answer(SocketSession session, Decoder frame, boolean binary, int bytes, boolean large) {
        frameWorkers.executeBlocking(() -> decode(frame, binary), false).onComplete(decoded -> {
            if (decoded.succeeded()) {
                carryOut(session, decoded.result(), bytes, large);
            } else {
                carryOut(
                        session,
                        new Decoded(SocketRequest.unreadable(binary), SocketErrors.of(decoded.cause())),
                        bytes,
                        large);
            }
        });
    }

    private void carryOut(SocketSession session, Decoded decoded, int bytes, boolean large) {
        Uni<SocketAnswer> answer = decoded.refusal() != null
                ? Uni.createFrom().item(decoded.refusal())
                : actions.answer(session, decoded.request(), this::admit);
        SocketRequest answered = decoded.request();
        answer.chain(reply -> send(session.connection(), answered, reply, large))
                .subscribe()
                .with(sent -> finished(session, bytes), failure -> {
                    if (failure instanceof SocketActions.TooManySockets refused) {
                        close(session.connection(), POLICY_VIOLATION, refused.getMessage());
                    } else if (session.connection().isOpen() && !ClosedConnections.closedUnder(failure)) {
                        LOG.warnf(
                                "An answer could not be written to socket %s: %s",
                                session.connection().id(), failure);
                    } else {
                        // The client closed the socket while its answer was on the way: its doing, not Pigeon's.
                        LOG.debugf(
                                "An answer found socket %s closed: %s",
                                session.connection().id(), failure);
                    }
                    finished(session, bytes);
                });
    }

    /** A frame of {@code bytes} was answered (or its socket is gone): the bytes are no longer held. */
    private void finished(SocketSession session, int bytes) {
        release(bytes);
        session.answered(bytes);
    }

    /**
     * Writes an answer, encoded on {@link #frameWorkers} and counted against the replica's bytes held until it is
     * written: an answer the replica has no room for closes its socket (1013) instead.
     */
    private Uni<Void> send(WebSocketConnection connection, SocketRequest request, SocketAnswer answer, boolean large) {
        if (!connection.isOpen()) {
            return Uni.createFrom().voidItem();
        }
        return Uni.createFrom()
                .completionStage(() -> frameWorkers
                        .executeBlocking(() -> encode(request, answer, large), false)
                        .toCompletionStage())
                .chain(encoded -> write(connection, encoded));
    }

    private Uni<Void> write(WebSocketConnection connection, Object encoded) {
        int bytes = encoded instanceof byte[] binary
                ? HELD_PER_BINARY_BYTE * binary.length
                : heldByText(((String) encoded).length());
        if (!hold(bytes)) {
            close(connection, TRY_AGAIN_LATER, replicaBusy());
            return Uni.createFrom().voidItem();
        }
        Uni<Void> sent = encoded instanceof byte[] binary
                ? connection.sendBinary(binary)
                : connection.sendText((String) encoded);
        return sent.onTermination().invoke(() -> release(bytes));
    }

    /**
     * The answer frame in the request's encoding: a byte array (MessagePack) or a string (JSON). An error answer to a
     * frame of more than {@link #MAX_ECHOED_FRAME} echoes only its action (when a short text).
     */
    private static Object encode(SocketRequest request, SocketAnswer answer, boolean large) {
        // authenticate's answer echoes neither body nor headers, as Zaqar's (but for a schema failure); no answer
        // echoes a token (SocketAnswer.envelope).
        ObjectNode frame;
        if (FrameSchema.AUTHENTICATE.equals(request.actionName()) && answer.status() != 400) {
            frame = answer.envelope(new SocketRequest(request.action(), null, null, request.binary()), false);
        } else if (large && answer.status() >= 400) {
            JsonNode action = request.action() != null
                            && request.action().isTextual()
                            && request.action().textValue().length() <= MAX_ECHOED_ACTION
                    ? request.action()
                    : null;
            frame = answer.envelope(new SocketRequest(action, null, null, request.binary()), false);
        } else {
            frame = answer.envelope(request, true);
        }
        try {
            return request.binary() ? FrameCodec.writeBinary(frame) : FrameCodec.writeText(frame);
        } catch (RuntimeException unwritable) {
            // A value of the request that the answer's encoding cannot hold: answered without the echo.
            ObjectNode fallback = SocketAnswer.exception(
                            500, "The answer cannot be encoded: " + unwritable.getMessage(), "Unexpected error.")
                    .envelope(SocketRequest.unreadable(request.binary()), false);
            return request.binary() ? FrameCodec.writeBinary(fallback) : FrameCodec.writeText(fallback);
        }
    }

    /**
     * Counts the socket against {@code project} the first time it acts for it with its own credentials, or against
     * the pre-signed grant of signature {@code grant} the first time that grant admits one of its frames (not against
     * the project: a grant's holder cannot take the project's own sockets' places); false past that bound.
     */
    private boolean admit(SocketSession session, String project, String grant) {
        if (grant != null) {
            return session.actsUnder(grant, signature -> counted(grantSockets, signature, maxSocketsPerGrant));
        }
        return session.actsFor(project, name -> counted(projectSockets, name, limits.maxSocketsPerProject()));
    }

    /** Counts one more socket of {@code holder}; false, counting nothing, when it has {@code max} already. */
    private boolean counted(Map<String, Integer> counts, String holder, int max) {
        synchronized (projectSockets) {
            int count = counts.getOrDefault(holder, 0);
            if (count >= max) {
                return false;
            }
            counts.put(holder, count + 1);
            return true;
        }
    }

    private void closeIdle() {
        long now = System.nanoTime();
        long idle = limits.idleTimeout().toNanos();
        for (SocketSession session : sessions.values()) {
            if (now - session.lastHeardNanos() > idle) {
                close(session.connection(), GOING_AWAY, "Idle for " + describe(limits.idleTimeout()) + ".");
            } else if (authentication.unauthenticatedFor(session, limits.authenticationTimeout(), now)) {
                close(
                        session.connection(),
                        POLICY_VIOLATION,
                        "Not authenticated within " + describe(limits.authenticationTimeout()) + ".");
            }
        }
    }

    private static String describe(Duration duration) {
        return duration.toSeconds() + " s";
    }

    static void close(WebSocketConnection connection, int code, String reason) {
        if (connection.isOpen()) {
            connection.close(new CloseReason(code, reason)).subscribe().with(closed -> {}, failure -> {});
        }
    }
}
