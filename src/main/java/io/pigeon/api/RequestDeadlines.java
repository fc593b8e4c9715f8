package io.pigeon.api;

import io.netty.channel.Channel;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.SingleThreadEventLoop;
import io.netty.handler.codec.http.HttpRequestDecoder;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.net.impl.ConnectionBase;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;
import org.jboss.logging.Logger;

/**
 * Bounds the time a request may take to arrive ({@code pigeon.http.request-head-timeout},
 * {@code pigeon.http.request-body-timeout}) and the connections one client source may hold
 * ({@code pigeon.http.max-connections-per-address}) on the HTTP port. Quarkus 3.34 and Vert.x 4.5 have neither: only
 * an idle timeout, which every byte resets, so 4,096 connections each sending a byte a minute kept a replica refusing
 * every new client.
 *
 * <p>Neither gives a hook on an accepted connection either (Quarkus owns the server's connection handler, for
 * {@code max-connections}), so each event loop sweeps its own connections: a few times a second it puts a
 * {@link RequestClock} on each new HTTP/1.1 server connection (its first request's head counts from then, within one
 * sweep of its accept), closes one past its source's share, and cuts every request that is late. A connection whose
 * first request came whole before the sweep saw it gets its clock from the router instead, first of every route: its
 * clock starts with the body. The sweep reads fields of each connection on the thread that owns it; the requests
 * themselves pay nothing but what the two handlers do per read and write.
 */
@ApplicationScoped
public class RequestDeadlines {

    private static final Logger LOG = Logger.getLogger(RequestDeadlines.class);

    /** The names of Vert.x's HTTP/1.1 server codec in a connection's pipeline (HttpServerWorker). */
    static final String DECODER = "httpDecoder";

    static final String ENCODER = "httpEncoder";

    /** How often each event loop looks at its connections. */
    static final long SWEEP_MILLIS = 250;

    private static final Duration SHORTEST = Duration.ofSeconds(1);
    private static final Duration LONGEST = Duration.ofHours(1);

    private final Vertx vertx;
    private final long headNanos;
    private final long bodyNanos;
    private final AddressShares shares;
    private final int managementPort;
    private final List<ScheduledFuture<?>> sweeps = new ArrayList<>();
    private final EarlyRefusals refusals;

    RequestDeadlines(HttpSettings httpSettings, Vertx vertx, EarlyRefusals refusals) {
        this.vertx = vertx;
        this.refusals = refusals;
        this.headNanos = checked("pigeon.http.request-head-timeout", httpSettings.requestHeadTimeout());
        this.bodyNanos = checked("pigeon.http.request-body-timeout", httpSettings.requestBodyTimeout());
        this.shares = new AddressShares(httpSettings.maxConnectionsPerAddress());
        // The management interface, when built in, is another server whose requests do not pass this router.
        Config all = ConfigProvider.getConfig();
        this.managementPort = all.getOptionalValue("quarkus.management.enabled", Boolean.class)
                        .orElse(false)
                ? all.getOptionalValue("quarkus.management.port", Integer.class).orElse(9000)
                : 0;
    }

    /** A bad deadline stops the start, naming the setting and its bounds. */
    private static long checked(String setting, Duration value) {
        if (value.compareTo(SHORTEST) < 0 || value.compareTo(LONGEST) > 0) {
            throw new IllegalArgumentException(setting + " must be from 1s to 1h; it is "
                    + value.toString().substring(2).toLowerCase());
        }
        return value.toNanos();
    }

    void start(@Observes StartupEvent started) {
        for (EventExecutor executor : vertx.nettyEventLoopGroup()) {
            if (executor instanceof SingleThreadEventLoop loop) {
                sweeps.add(
                        loop.scheduleAtFixedRate(() -> sweep(loop), SWEEP_MILLIS, SWEEP_MILLIS, TimeUnit.MILLISECONDS));
            } else {
                LOG.warnf(
                        "Event loop %s cannot list its connections: request deadlines and the per-address share of"
                                + " connections do not apply to its connections.",
                        executor);
            }
        }
    }

    void stop(@Observes ShutdownEvent stopped) {
        sweeps.forEach(sweep -> sweep.cancel(false));
    }

    /**
     * First of every route: a connection whose first request arrived before any sweep saw it gets its clock now; and
     * the clock learns how a door answers this request's late body (an SQS request reads an SQS error), as the request
     * is known only here, once its head is whole.
     */
    void install(@Observes Router router) {
        router.route().order(Integer.MIN_VALUE).handler(this::route);
    }

    void route(RoutingContext context) {
        HttpConnection connection = context.request().connection();
        if (connection instanceof ConnectionBase base) {
            Channel channel = base.channel();
            RequestClock clock = channel.attr(RequestClock.KEY).get();
            if (clock == null && isHttp1Server(channel)) {
                AddressShares.Share share = shares.take(channel.remoteAddress());
                if (share == null) {
                    new ErrorDocument(
                                    "Too many connections",
                                    "This client address holds too many connections to this server already.")
                            .endWithClose(context.response(), 503);
                    return;
                }
                clock = RequestClock.install(channel, headNanos, bodyNanos, share, true);
                if (context.request().isEnded()) {
                    clock.bodyEnded();
                }
            }
            if (clock != null && !context.request().isEnded()) {
                refusals.shaped(context.request(), EarlyRefusal.TIMEOUT, RequestClock.lateBody(bodyNanos))
                        .ifPresent(clock::answerLateBodyWith);
            }
        }
        context.next();
    }

    private void sweep(SingleThreadEventLoop loop) {
        try {
            long now = System.nanoTime();
            // Changed only after the walk: closing a connection or its pipeline may change the loop's set of channels.
            List<RequestClock> late = null;
            List<Channel> unseen = null;
            Iterator<Channel> channels = loop.registeredChannelsIterator();
            while (channels.hasNext()) {
                Channel channel = channels.next();
                RequestClock clock = channel.attr(RequestClock.KEY).get();
                if (clock != null) {
                    if (clock.late(now)) {
                        late = add(late, clock);
                    }
                } else if (channel.isActive() && isHttp1Server(channel)) {
                    unseen = add(unseen, channel);
                }
            }
            if (late != null) {
                late.forEach(RequestClock::cut);
            }
            if (unseen != null) {
                for (Channel channel : unseen) {
                    AddressShares.Share share = shares.take(channel.remoteAddress());
                    if (share == null) {
                        channel.close();
                    } else {
                        RequestClock.install(channel, headNanos, bodyNanos, share, false);
                    }
                }
            }
        } catch (RuntimeException e) {
            LOG.warnf("A sweep of the HTTP connections failed: %s", e.toString());
        }
    }

    private static <T> List<T> add(List<T> list, T item) {
        List<T> to = list == null ? new ArrayList<>() : list;
        to.add(item);
        return to;
    }

    /** A connection the HTTP server accepted that speaks HTTP/1.1 through Vert.x's codec (not yet upgraded). */
    private boolean isHttp1Server(Channel channel) {
        if (channel.parent() == null
                || (managementPort > 0
                        && channel.localAddress() instanceof InetSocketAddress local
                        && local.getPort() == managementPort)) {
            return false;
        }
        ChannelPipeline pipeline = channel.pipeline();
        return pipeline.get(DECODER) instanceof HttpRequestDecoder && pipeline.get(ENCODER) != null;
    }

    /** This replica's connection shares, for tests. */
    AddressShares shares() {
        return shares;
    }
}
