package io.pigeon.api.ws;

import io.pigeon.subscription.SocketSubscriptions;
import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.websockets.next.WebSocketConnection;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * What Pigeon knows of one open socket: the token it authenticated with ({@link SocketAuthentication}), the frames
 * waiting for their answers (answered one at a time, in order), the projects it acted for with its own credentials
 * (counted against each project's socket bound) and the pre-signed grants that admitted its frames (counted against
 * each grant's bound instead), its inbox for the notifications of the subscriptions it made for itself, and when the
 * client was last heard.
 */
final class SocketSession {

    /** A socket may act for this many projects (frames name theirs, with authentication off). */
    static final int MAX_PROJECTS_PER_SOCKET = 16;

    /** A socket may have frames admitted by this many pre-signed grants (signatures). */
    static final int MAX_GRANTS_PER_SOCKET = 16;

    private final WebSocketConnection connection;
    private final SocketInbox inbox;
    private final Queue<Runnable> waiting = new ArrayDeque<>();
    private final Set<String> projects = new HashSet<>();
    private final Set<String> grants = new HashSet<>();
    private boolean answering;
    private int inFlight;
    /** Guarded by {@code this}: bytes of the frames in flight (taken and not yet answered). */
    private long heldBytes;
    /** Guarded by {@code this}: frames came past the bound of frames in flight; the socket is closing. */
    private boolean refusing;

    private volatile long lastHeard = System.nanoTime();
    /** When the socket opened, or last had a frame admitted by a token or a grant (OIDC mode). */
    private volatile long lastAdmitted = System.nanoTime();

    private volatile boolean subscribed;

    /** The token the socket authenticated with (OIDC mode); null before, and once it expired. */
    private Authentication authentication;

    SocketSession(WebSocketConnection connection, int maxPendingNotificationBytes, NotificationRoom room) {
        this.connection = connection;
        this.inbox = new SocketInbox(connection, maxPendingNotificationBytes, room);
    }

    WebSocketConnection connection() {
        return connection;
    }

    SocketInbox inbox() {
        return inbox;
    }

    /**
     * A token the socket authenticated with: the identity Quarkus OIDC made of it, when it expires (null when the
     * token does not say), and the timer that closes the socket then (-1: none).
     */
    record Authentication(SecurityIdentity identity, Instant expires, long timer) {

        boolean expired(Instant now) {
            return expires != null && !now.isBefore(expires);
        }
    }

    /** The socket's token; null when it has authenticated with none (or it expired). */
    synchronized Authentication authentication() {
        return authentication;
    }

    /** Whether the socket is counted among those acting for someone (pigeon.websocket.max-sockets). */
    private boolean acting;

    synchronized void acting() {
        acting = true;
    }

    /** Stops counting the socket as acting: true when it was. */
    synchronized boolean leaveActing() {
        boolean was = acting;
        acting = false;
        return was;
    }

    /** Run once, the first time the socket authenticates: it is anonymous no longer (SocketTransport counts). */
    private Runnable firstAuthentication;

    synchronized void onFirstAuthentication(Runnable action) {
        firstAuthentication = action;
    }

    /** The socket acts with {@code next} from now on (null: with none); the one it replaces is returned. */
    synchronized Authentication authenticated(Authentication next) {
        Authentication previous = authentication;
        authentication = next;
        if (next != null && firstAuthentication != null) {
            Runnable first = firstAuthentication;
            firstAuthentication = null;
            first.run();
        }
        return previous;
    }

    /** The timer of a token fired: true when that token was still the socket's (it no longer is). */
    synchronized boolean expire(long timer) {
        if (authentication == null || authentication.timer() != timer) {
            return false;
        }
        authentication = null;
        return true;
    }

    /**
     * Notes that the socket acts for {@code project}: true when it did already, or when {@code admit} (the
     * replica's per-project count) takes it; false when the socket acts for too many projects already or the
     * project has too many sockets.
     */
    synchronized boolean actsFor(String project, Function<String, Boolean> admit) {
        if (projects.contains(project)) {
            return true;
        }
        if (projects.size() >= MAX_PROJECTS_PER_SOCKET || !admit.apply(project)) {
            return false;
        }
        projects.add(project);
        return true;
    }

    /**
     * Notes that a frame of the socket was admitted by the grant of signature {@code grant}: true when one was already,
     * or when {@code admit} (the replica's per-grant count) takes it; false when the socket has frames of too many
     * grants already or the grant has too many sockets.
     */
    synchronized boolean actsUnder(String grant, Function<String, Boolean> admit) {
        if (grants.contains(grant)) {
            return true;
        }
        if (grants.size() >= MAX_GRANTS_PER_SOCKET || !admit.apply(grant)) {
            return false;
        }
        grants.add(grant);
        return true;
    }

    /** Whether a frame of one more grant would pass the bound of grants per socket. */
    synchronized boolean actsUnderTooMany(String grant) {
        return grants.size() >= MAX_GRANTS_PER_SOCKET && !grants.contains(grant);
    }

    synchronized Set<String> grants() {
        return Set.copyOf(grants);
    }

    /** Whether acting for {@code project} too would pass the bound of projects per socket. */
    synchronized boolean actsForTooMany(String project) {
        return projects.size() >= MAX_PROJECTS_PER_SOCKET && !projects.contains(project);
    }

    synchronized Set<String> projects() {
        return Set.copyOf(projects);
    }

    /** What became of a request frame. */
    enum Taken {
        /** Taken: it is answered in its turn. */
        TAKEN,
        /** Not taken: the socket is past a bound already and closes once the frames taken are answered. */
        DROPPED,
        /** Not taken: one frame more than the socket may have in flight. */
        TOO_MANY_FRAMES,
        /** Not taken: more bytes of frames than the socket may have in flight. */
        TOO_MANY_BYTES
    }

    /**
     * Takes one more request frame of {@code bytes}, unless the socket has {@code maxFrames} frames or would have more
     * than {@code maxBytes} bytes unanswered. Its answer is given after every earlier frame's ({@code answer} runs
     * when those are sent, and calls {@link #answered} with the frame's bytes).
     */
    Taken received(Runnable answer, int bytes, int maxFrames, long maxBytes) {
        lastHeard = System.nanoTime();
        synchronized (this) {
            if (refusing) {
                return Taken.DROPPED;
            }
            if (inFlight >= maxFrames) {
                return Taken.TOO_MANY_FRAMES;
            }
            if (heldBytes + bytes > maxBytes) {
                return Taken.TOO_MANY_BYTES;
            }
            inFlight++;
            heldBytes += bytes;
            if (answering) {
                waiting.add(answer);
                return Taken.TAKEN;
            }
            answering = true;
        }
        answer.run();
        return Taken.TAKEN;
    }

    /**
     * Past the bound of frames in flight: no frame is taken any more, and {@code close} runs once every frame taken
     * before has been answered, so that a client learns the outcome of each frame that was carried out.
     */
    void refuseAfterAnswers(Runnable close) {
        synchronized (this) {
            if (refusing) {
                return;
            }
            refusing = true;
            if (answering) {
                waiting.add(close);
                return;
            }
        }
        close.run();
    }

    /** The answer of the oldest frame ({@code bytes}) was sent (or the socket is gone): the next frame's turn. */
    void answered(int bytes) {
        Runnable next;
        synchronized (this) {
            inFlight--;
            heldBytes -= bytes;
            next = waiting.poll();
            if (next == null) {
                answering = false;
                return;
            }
        }
        next.run();
    }

    /** A pong (or any frame) came: the client is there. */
    void heard() {
        lastHeard = System.nanoTime();
    }

    long lastHeardNanos() {
        return lastHeard;
    }

    /** A frame was admitted by the socket's token or by a pre-signed grant: it is not waiting for nobody. */
    void admitted() {
        lastAdmitted = System.nanoTime();
    }

    long lastAdmittedNanos() {
        return lastAdmitted;
    }

    /**
     * The socket asks to subscribe itself: from now on its close must forget its subscriptions, even when it closes
     * before the subscription is stored (the push then deletes the row it stores).
     */
    void subscribing() {
        subscribed = true;
    }

    /** The socket subscribed itself to a queue: its notifications take the encoding of that request frame. */
    void subscribed(boolean binary) {
        subscribed = true;
        inbox.binary(binary);
    }

    boolean hasSubscribed() {
        return subscribed;
    }

    /**
     * The replica's room for notifications waiting to be written, shared with request frames and answers
     * (pigeon.websocket.max-held-bytes): one post reaches every socket subscribed to its queue, so sockets that do not
     * read could otherwise hold a post's bytes many times over, each within its own bound.
     */
    interface NotificationRoom {

        /**
         * Counts {@code bytes} of a notification for {@code inbox}; past the replica's bound, room is made by closing
         * the sockets furthest behind in reading (whose oldest unwritten notification has waited longest) when they
         * are further behind than {@code inbox}. False, with nothing counted, when {@code inbox} is the one furthest
         * behind.
         */
        boolean hold(SocketInbox inbox, long bytes);

        void release(long bytes);

        /** Closes a socket that does not read what it is sent (its close frame would wait behind it: it is cut). */
        void closeReader(WebSocketConnection connection, int code, String reason);
    }

    /**
     * Where a socket's notifications go: each is framed as Zaqar's bare notification and written at once; a client
     * that does not read them closes its socket once {@code maxPendingBytes} of them wait to be written, or once the
     * replica's room is full and it is the socket furthest behind. They are counted as they lie on the heap
     * ({@link SocketTransport#heldByText}).
     */
    static final class SocketInbox implements SocketSubscriptions.SocketInbox {

        private final WebSocketConnection connection;
        private final int maxPendingBytes;
        private final NotificationRoom room;
        private final AtomicLong pendingBytes = new AtomicLong();
        /**
         * When each notification waiting to be written was queued (System.nanoTime), oldest first, as they are
         * written. Guarded by itself. How long the oldest has waited tells a socket that does not read from one that
         * reads and was just sent a burst: both may have as many bytes waiting.
         */
        private final ArrayDeque<Long> queuedAt = new ArrayDeque<>();

        private volatile boolean binary;
        /** Closed to make room for other sockets' notifications: it takes no more. */
        private volatile boolean closing;
        /**
         * The projects whose notifications the socket may receive, as its current identity admits them (with
         * authentication off, every frame names its project: all); set by {@link SocketAuthentication}.
         */
        private volatile Predicate<String> receivesFor = project -> true;

        SocketInbox(WebSocketConnection connection, int maxPendingBytes, NotificationRoom room) {
            this.connection = connection;
            this.maxPendingBytes = maxPendingBytes;
            this.room = room;
        }

        /** Bytes of notifications waiting to be written to this socket. */
        long pending() {
            return pendingBytes.get();
        }

        /** When the oldest notification waiting to be written was queued; {@code now} when none waits. */
        long waitingSince(long now) {
            synchronized (queuedAt) {
                Long oldest = queuedAt.peekFirst();
                return oldest == null ? now : oldest;
            }
        }

        boolean closing() {
            return closing;
        }

        /** Closes the socket to make room: it reads too slowly for the notifications it is sent. */
        void closeToMakeRoom(String reason) {
            closing = true;
            room.closeReader(connection, SocketTransport.TRY_AGAIN_LATER, reason);
        }

        void binary(boolean binary) {
            this.binary = binary;
        }

        /** From now on the socket receives notifications only of the projects {@code admitted} accepts. */
        void receiveOnlyFor(Predicate<String> admitted) {
            this.receivesFor = admitted;
        }

        @Override
        public boolean receivesFor(String project) {
            return receivesFor.test(project);
        }

        @Override
        public String socketId() {
            return connection.id();
        }

        @Override
        public void deliver(SocketSubscriptions.SocketNotification notification) {
            if (closing || !connection.isOpen()) {
                return;
            }
            // Zaqar's webhook document, key order included: ttl, body, Message_Type, queue_name.
            var frame = FrameCodec.object();
            frame.put("ttl", notification.ttl());
            frame.set("body", FrameCodec.readStored(notification.bodyJson()));
            frame.put("Message_Type", "Notification");
            frame.put("queue_name", notification.queueName());
            if (binary) {
                byte[] bytes = FrameCodec.writeBinary(frame);
                int held = SocketTransport.HELD_PER_BINARY_BYTE * bytes.length;
                if (reserve(held)) {
                    connection.sendBinary(bytes).subscribe().with(sent -> release(held), failed -> release(held));
                }
            } else {
                String text = FrameCodec.writeText(frame);
                int held = SocketTransport.heldByText(text.length());
                if (reserve(held)) {
                    connection.sendText(text).subscribe().with(sent -> release(held), failed -> release(held));
                }
            }
        }

        /**
         * Counts a frame about to be written, for this socket and the replica; past the socket's bound the reader is
         * too slow and its socket is closed (1008), past the replica's when it is the one furthest behind (1013).
         */
        private boolean reserve(int bytes) {
            if (pendingBytes.addAndGet(bytes) > maxPendingBytes) {
                pendingBytes.addAndGet(-bytes);
                room.closeReader(connection, SocketTransport.POLICY_VIOLATION, "Notifications are not read.");
                return false;
            }
            synchronized (queuedAt) {
                queuedAt.addLast(System.nanoTime());
            }
            if (!room.hold(this, bytes)) {
                synchronized (queuedAt) {
                    queuedAt.pollLast();
                }
                pendingBytes.addAndGet(-bytes);
                closeToMakeRoom(SocketTransport.NOTIFICATIONS_NOT_READ);
                return false;
            }
            return true;
        }

        private void release(int bytes) {
            synchronized (queuedAt) {
                queuedAt.pollFirst();
            }
            pendingBytes.addAndGet(-bytes);
            room.release(bytes);
        }
    }
}
