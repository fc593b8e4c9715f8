package io.pigeon.api.ws;

import io.quarkus.runtime.annotations.RegisterForReflection;
import io.quarkus.vertx.http.runtime.filters.QuarkusRequestWrapper;
import io.quarkus.websockets.next.UserData;
import io.vertx.core.http.HttpServerRequest;
import java.lang.reflect.Method;
import org.jboss.logging.Logger;

/**
 * Ends, for Quarkus's graceful shutdown, the HTTP request that a socket was upgraded from, once the socket is closed.
 *
 * <p>Quarkus counts every request as in flight until its response ends or its connection closes. An upgraded request
 * has no response, and Vert.x tells its connection's end to the websocket only, so the count never comes back down:
 * a replica that has ever served a socket waited the whole {@code quarkus.shutdown.timeout} on every shutdown, however
 * promptly its sockets were closed. Quarkus has no public way to end such a request; its wrapper's {@code done()} is
 * package-private, so it is called reflectively. Should a Quarkus upgrade remove it, this logs once and shutdown goes
 * back to waiting for its timeout, nothing worse.
 */
@RegisterForReflection(targets = QuarkusRequestWrapper.class, methods = true, fields = false)
final class UpgradedRequests {

    private static final Logger LOG = Logger.getLogger(UpgradedRequests.class);

    /** Where a socket keeps the way to end its upgraded request (put by the upgrade check, run when it closes). */
    static final UserData.TypedKey<Runnable> END = new UserData.TypedKey<>("pigeon.upgraded-request");

    private static final Method DONE = doneMethod();

    private UpgradedRequests() {}

    /** What ends {@code request} for graceful shutdown; does nothing where the request cannot be reached. */
    static Runnable ender(HttpServerRequest request) {
        if (DONE == null) {
            return () -> {};
        }
        QuarkusRequestWrapper wrapper;
        try {
            wrapper = QuarkusRequestWrapper.get(request);
        } catch (RuntimeException notWrapped) {
            return () -> {};
        }
        return () -> {
            try {
                DONE.invoke(wrapper);
            } catch (ReflectiveOperationException | RuntimeException failed) {
                LOG.debugf("The upgraded request could not be ended: %s", failed);
            }
        };
    }

    private static Method doneMethod() {
        try {
            Method done = QuarkusRequestWrapper.class.getDeclaredMethod("done");
            done.setAccessible(true);
            return done;
        } catch (ReflectiveOperationException | RuntimeException missing) {
            LOG.warnf(
                    "Quarkus's request wrapper has no done(): shutdown waits quarkus.shutdown.timeout once a"
                            + " websocket has been served (%s)",
                    missing);
            return null;
        }
    }
}
