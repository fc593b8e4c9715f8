package io.pigeon.api.ws;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pigeon.api.SignedRequests;
import io.pigeon.rules.Rejection;
import io.pigeon.subscription.SocketSubscriptions;
import io.pigeon.tenancy.BearerTokens;
import io.pigeon.tenancy.Caller;
import io.pigeon.tenancy.SignedTarget;
import io.pigeon.tenancy.SignedUrls;
import io.pigeon.tenancy.TokenTenancy;
import io.pigeon.tenancy.Unauthenticated;
import io.quarkus.security.AuthenticationFailedException;
import io.quarkus.security.identity.SecurityIdentity;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Vertx;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jboss.logging.Logger;

/**
 * Who a frame acts as, with the HTTP edge's rules ({@code io.pigeon.api.Authentication}). With authentication off,
 * the frame's own {@code X-Project-ID} (and {@code X-Roles} where the operator believes it). In OIDC mode the socket
 * authenticates once with {@code authenticate} and its bearer token in {@code X-Auth-Token}: the token is checked by
 * Quarkus OIDC exactly as an HTTP bearer token is (signature, issuer, audience, expiry), and each later frame is
 * admitted by {@link TokenTenancy} on that token's projects and roles, as an HTTP request is. Until then only a
 * message action carrying a valid pre-signed grant for its queue is served. The socket is closed (4003) when the
 * token expires. What it receives of its own subscriptions follows its current token too: a new token drops the
 * subscriptions in projects it does not grant, and nothing is pushed for a project the token no longer grants.
 */
@ApplicationScoped
class SocketAuthentication {

    private static final Logger LOG = Logger.getLogger(SocketAuthentication.class);

    /** Zaqar's close code for a socket whose token expired. */
    static final int AUTHENTICATION_EXPIRED = 4003;

    static final String SIGNATURE = SignedRequests.SIGNATURE;

    /**
     * The HTTP method each message action stands for when a grant is checked (Zaqar's handler maps them the same
     * way); no other action can be opened by a grant.
     */
    private static final Map<String, String> GRANTED_METHODS = Map.of(
            "message_list", "GET",
            "message_get", "GET",
            "message_get_many", "GET",
            "message_post", "POST",
            "message_delete", "DELETE",
            "message_delete_many", "DELETE");

    private final TokenTenancy tenancy;
    private final SignedUrls signedUrls;
    private final BearerTokens tokens;
    private final Vertx vertx;
    private final SocketSubscriptions socketSubscriptions;

    SocketAuthentication(
            TokenTenancy tenancy,
            SignedUrls signedUrls,
            BearerTokens tokens,
            Vertx vertx,
            SocketSubscriptions socketSubscriptions) {
        this.tenancy = tenancy;
        this.signedUrls = signedUrls;
        this.tokens = tokens;
        this.vertx = vertx;
        this.socketSubscriptions = socketSubscriptions;
    }

    /** Refused when the socket is not authenticated (token mode): Zaqar's 403 "Not authentified.". */
    static final class NotAuthenticated extends RuntimeException {
        NotAuthenticated() {
            super("Not authentified.", null, false, false);
        }
    }

    /** Whether sockets authenticate (OIDC mode); with authentication off every socket acts from its upgrade. */
    boolean tokensRequired() {
        return tenancy.tokensRequired();
    }

    /**
     * Whether a served action's frame must name its project in {@code X-Project-ID} (Zaqar's schema): not once the
     * socket holds a token, which may name the project itself (a token granting exactly one), as over HTTP.
     */
    boolean projectHeaderRequired(SocketSession session) {
        return !tenancy.tokensRequired() || session.authentication() == null;
    }

    /**
     * The caller a frame acts as. Token mode: a frame carrying a grant ({@code URL-Signature}) is decided by the
     * grant alone, as an HTTP request carrying one is; any other by the socket's token, for the project the frame
     * names; none yet (or expired): {@link NotAuthenticated}.
     */
    Caller callerFor(SocketSession session, SocketRequest request) {
        if (!tenancy.tokensRequired()) {
            return tenancy.unauthenticated(request.header(FrameSchema.PROJECT_ID), request.header("X-Roles"));
        }
        if (request.hasHeader(SIGNATURE)) {
            Caller granted = granted(request).orElseThrow(NotAuthenticated::new);
            session.admitted();
            return granted;
        }
        SocketSession.Authentication authentication = session.authentication();
        if (authentication == null || authentication.expired(Instant.now())) {
            throw new NotAuthenticated();
        }
        return tenancy.admit(authentication.identity(), request.header(FrameSchema.PROJECT_ID), true);
    }

    /**
     * Whether the socket acts for nobody yet, in OIDC mode: it holds no token, and {@code timeout} passed since it
     * opened or since a pre-signed grant last served one of its frames.
     */
    boolean unauthenticatedFor(SocketSession session, Duration timeout, long now) {
        return tenancy.tokensRequired()
                && session.authentication() == null
                && now - session.lastAdmittedNanos() > timeout.toNanos();
    }

    /**
     * The caller a pre-signed grant admits this frame as: the grant's project (never the operator), when the action
     * is a message action whose method the grant names, on the queue the frame names, and the signature holds. The
     * grant's methods and paths may come as Zaqar's websocket clients send them (arrays) or as HTTP headers (text
     * joined with commas).
     */
    private Optional<Caller> granted(SocketRequest request) {
        String method = GRANTED_METHODS.get(request.actionName());
        String queue = request.text("queue_name");
        if (method == null || queue == null) {
            return Optional.empty();
        }
        SignedUrls.Presented presented = new SignedUrls.Presented(
                request.header(SIGNATURE),
                request.header("URL-Expires"),
                joined(request, "URL-Methods"),
                joined(request, "URL-Paths"),
                request.header(FrameSchema.PROJECT_ID));
        SignedTarget target = SignedTarget.of("v2", "queues", queue, SignedTarget.Kind.MESSAGES);
        if (presented.expires() == null || !signedUrls.admits(presented, method, target)) {
            return Optional.empty();
        }
        return Optional.of(Caller.signed(presented.project(), SignedUrls.expiryOf(presented), presented.signature()));
    }

    /** A list header: a string as sent, or an array of strings joined with commas; null otherwise. */
    private static String joined(SocketRequest request, String name) {
        JsonNode value = request.headers() instanceof ObjectNode headers ? headers.get(name) : null;
        if (value == null) {
            return null;
        }
        if (value.isTextual()) {
            return value.textValue();
        }
        if (!value.isArray() || value.isEmpty()) {
            return null;
        }
        StringBuilder joined = new StringBuilder();
        for (JsonNode item : value) {
            if (!item.isTextual()) {
                return null;
            }
            joined.append(joined.isEmpty() ? "" : ",").append(item.textValue());
        }
        return joined.toString();
    }

    /**
     * Zaqar's {@code authenticate}. With authentication off there is nothing to check (every frame names its
     * project; Zaqar 15 crashes here). In OIDC mode the token is checked as HTTP checks a bearer token and must grant
     * the project the frame names; the socket then acts with that token (replacing one it held) until it expires. A
     * token that fails leaves the socket as it was.
     */
    Uni<SocketAnswer> authenticate(SocketSession session, SocketRequest request) {
        if (!tenancy.tokensRequired()) {
            return Uni.createFrom().item(authentified());
        }
        String token = request.header(FrameSchema.AUTH_TOKEN).trim();
        if (token.isEmpty()) {
            return Uni.createFrom().item(failed());
        }
        return tokens.identify(token)
                .chain(identity -> {
                    // The token's projects and roles alone decide: the project the frame names must be one of them.
                    tenancy.admit(identity, request.header(FrameSchema.PROJECT_ID), true);
                    bind(session, identity);
                    return dropRevoked(session).replaceWith(authentified());
                })
                .onFailure(failure ->
                        failure instanceof AuthenticationFailedException || failure instanceof Unauthenticated)
                .recoverWithItem(SocketAuthentication::failed)
                // Anything else but a refusal of the project means the token could not be checked (the provider
                // cannot be reached): as HTTP, the client is told to try again.
                .onFailure(failure -> !(failure instanceof Rejection))
                .recoverWithItem(() -> SocketAnswer.exception(
                        503,
                        "The identity provider cannot be reached to check the bearer token; try again later.",
                        "Authentication failed."));
    }

    /**
     * The socket acts with {@code identity} from now on, until its token expires (then it is closed, 4003), and
     * receives notifications only of the projects it grants, until then.
     */
    private void bind(SocketSession session, SecurityIdentity identity) {
        Instant expires = BearerTokens.expiryOf(identity);
        Set<String> granted = Set.copyOf(tenancy.grantedProjects(identity));
        boolean operator = tenancy.isOperator(identity);
        // Before the new token is the socket's: from here on no frame and no notification acts on the old one's grant.
        session.inbox()
                .receiveOnlyFor(project -> (expires == null || Instant.now().isBefore(expires))
                        && (operator || granted.contains(project)));
        long timer = expires == null
                ? -1
                : vertx.setTimer(
                        Math.max(1, expires.toEpochMilli() - System.currentTimeMillis()), id -> expired(session, id));
        SocketSession.Authentication previous =
                session.authenticated(new SocketSession.Authentication(identity, expires, timer));
        if (previous != null && previous.timer() >= 0) {
            vertx.cancelTimer(previous.timer());
        }
        if (!session.connection().isOpen()) {
            // Closed while the token was being checked: nothing is left to watch.
            closed(session);
        }
    }

    /**
     * The socket's subscriptions in projects its new token does not grant are dropped (their rows deleted, freeing the
     * project's quota) before the socket is told it is authenticated. A row that cannot be deleted now is no longer
     * renewed, so it is swept once its lease runs out; nothing is pushed for it meanwhile.
     */
    private Uni<Void> dropRevoked(SocketSession session) {
        if (!session.hasSubscribed()) {
            return Uni.createFrom().voidItem();
        }
        return socketSubscriptions
                .forgetRevoked(session.inbox())
                .onFailure()
                .invoke(failure -> LOG.warnf(
                        "The subscriptions socket %s's new token does not grant were not deleted (they are swept "
                                + "once their lease runs out): %s",
                        session.connection().id(), failure.toString()))
                .onFailure()
                .recoverWithNull();
    }

    /** An OIDC-mode socket receives nothing before it authenticates. */
    void opened(SocketSession session) {
        if (tenancy.tokensRequired()) {
            session.inbox().receiveOnlyFor(project -> false);
        }
    }

    private static void expired(SocketSession session, long timer) {
        if (session.expire(timer)) {
            session.inbox().receiveOnlyFor(project -> false);
            SocketTransport.close(session.connection(), AUTHENTICATION_EXPIRED, "Authentication expired.");
        }
    }

    /** The socket is gone: the expiry of its token is no longer watched. */
    void closed(SocketSession session) {
        session.inbox().receiveOnlyFor(project -> false);
        SocketSession.Authentication forgotten = session.authenticated(null);
        if (forgotten != null && forgotten.timer() >= 0) {
            vertx.cancelTimer(forgotten.timer());
        }
    }

    private static SocketAnswer authentified() {
        ObjectNode body = FrameCodec.object();
        body.put("message", "Authentified.");
        return new SocketAnswer(200, body);
    }

    private static SocketAnswer failed() {
        return SocketAnswer.error(401, "Authentication failed.");
    }
}
