package io.pigeon.config;

import io.quarkus.flyway.FlywayConfigurationCustomizer;
import io.quarkus.runtime.StartupEvent;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.pgclient.PgConnection;
import io.vertx.sqlclient.SqlConnection;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.flywaydb.core.api.configuration.FluentConfiguration;
import org.jboss.logging.Logger;

/**
 * Stops the start when the configured database is reached through a pooler that lends a server session per
 * transaction (PgBouncer's {@code pool_mode=transaction} or {@code statement}) rather than per connection. Pigeon
 * needs a session: its notices are a LISTEN that must stay on one server session, and its client keeps prepared
 * statements on the server session that prepared them ({@code quarkus.datasource.reactive.cache-prepared-statements});
 * through such a pooler posts and claims would fail or waiters never wake, long after the start.
 *
 * <p>How it knows, without a setting the operator declares: two connections of its own, both held open, ask the
 * server for its session ({@code pg_backend_pid()}) in separate transactions, the first twice, then the second. A
 * server session belongs to one connection for that connection's life on PostgreSQL and behind a session pooler, so
 * there one connection always sees the same pid and two open connections never see the same one: this check cannot
 * refuse a direct connection. A transaction pooler gives the session back after each transaction: with PgBouncer's
 * default (LIFO) the second connection gets the session the first just gave back (the same pid), with
 * {@code server_round_robin=1} and two or more idle sessions the first connection's second transaction gets another
 * (a pid change), and with a pool of one server connection both connections share it. Only other clients taking
 * exactly the sessions given back, every round, can hide it: the rounds are repeated. A check that cannot finish
 * (the database does not answer) proves nothing and refuses nothing: it is logged, and the start goes on.
 *
 * <p>It runs before the migrations (as Flyway is configured at start), then never again: through a transaction pooler
 * of one server connection Flyway's second connection waits for ever behind its first one's open transaction, and
 * the start would end, minutes later, with Flyway's timeout instead of this line. Without migrations at start it runs
 * when the application has started.
 */
@ApplicationScoped
public class SessionPoolingCheck implements FlywayConfigurationCustomizer {

    private static final Logger LOG = Logger.getLogger(SessionPoolingCheck.class);

    /** The server session a statement ran in. Sent as a simple query: no prepared statement is left behind. */
    static final String SESSION = "SELECT pg_backend_pid()";

    /** How the check's two connections show in {@code pg_stat_activity} while they last. */
    static final String APPLICATION_NAME = "pigeon-session-check";

    static final int ROUNDS = 3;
    static final Duration DEADLINE = Duration.ofSeconds(20);

    private final Optional<String> url;
    private final Optional<String> user;
    private final Optional<String> password;
    private final Vertx vertx;
    private final AtomicBoolean checked = new AtomicBoolean();

    public SessionPoolingCheck(
            @ConfigProperty(name = "quarkus.datasource.reactive.url") Optional<String> url,
            @ConfigProperty(name = "quarkus.datasource.username") Optional<String> user,
            @ConfigProperty(name = "quarkus.datasource.password") Optional<String> password,
            Vertx vertx) {
        this.url = url;
        this.user = user;
        this.password = password;
        this.vertx = vertx;
    }

    @Override
    public void customize(FluentConfiguration configuration) {
        check();
    }

    void started(@Observes StartupEvent started) {
        check();
    }

    private void check() {
        if (!checked.compareAndSet(false, true)) {
            return;
        }
        if (url.isEmpty()) {
            return; // no configured database: nothing would connect through a pooler
        }
        // From the URL and the credentials, as the pool's own options are made when the pool is (after Flyway ran).
        PgConnectOptions options;
        try {
            options = PgConnectOptions.fromUri(url.get().trim());
        } catch (RuntimeException unreadable) {
            LOG.warnf("Could not check how the database is pooled: its URL could not be read (%s)", unreadable);
            return;
        }
        user.ifPresent(options::setUser);
        password.ifPresent(options::setPassword);
        options.addProperty("application_name", APPLICATION_NAME);
        String evidence;
        try {
            evidence = evidence(options)
                    .toCompletionStage()
                    .toCompletableFuture()
                    .get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
        } catch (Exception notFinished) {
            LOG.warnf(
                    "Could not check that the database at %s:%d/%s gives each connection a session of its own (%s);"
                            + " starting anyway",
                    options.getHost(),
                    options.getPort(),
                    options.getDatabase(),
                    notFinished.getCause() == null ? notFinished : notFinished.getCause());
            return;
        }
        if (evidence != null) {
            String refusal = refusal(options, evidence);
            LOG.error(refusal); // one line of its own, before Quarkus's trace of the failed start
            throw new IllegalStateException(refusal);
        }
    }

    /** The line the start stops with: what was seen, what breaks, what to do. */
    static String refusal(PgConnectOptions options, String evidence) {
        return "The database at " + options.getHost() + ":" + options.getPort() + "/" + options.getDatabase()
                + " (quarkus.datasource.reactive.url) lends a server session per transaction, as PgBouncer's"
                + " pool_mode=transaction or statement does: " + evidence + ". Pigeon needs a session per"
                + " connection: its LISTEN for notices (waiting claims, websockets, the dispatcher) would not hear"
                + " NOTIFY once its session went to another client, and its prepared statements would be missing on"
                + " (or clash with another client's on) the session the next transaction gets. Give Pigeon's"
                + " database pool_mode=session in PgBouncer (a [databases] entry of its own), or connect Pigeon to"
                + " PostgreSQL directly (docs/operations.md, PgBouncer).";
    }

    /** What shows that sessions are lent per transaction, or null when every round kept one session per connection. */
    Future<String> evidence(PgConnectOptions options) {
        return PgConnection.connect(vertx, options).compose(first -> PgConnection.connect(vertx, options)
                .compose(second -> rounds(first, second, ROUNDS).eventually(() -> second.close()))
                .eventually(() -> first.close()));
    }

    private Future<String> rounds(SqlConnection first, SqlConnection second, int left) {
        if (left == 0) {
            return Future.succeededFuture(null);
        }
        List<Integer> firstSeen = new ArrayList<>();
        return session(first)
                .compose(pid -> {
                    firstSeen.add(pid);
                    return session(first);
                })
                .compose(pid -> {
                    firstSeen.add(pid);
                    return session(second);
                })
                .compose(secondPid -> {
                    if (!firstSeen.get(0).equals(firstSeen.get(1))) {
                        return Future.succeededFuture("one connection's two transactions ran in server sessions "
                                + firstSeen.get(0) + " and " + firstSeen.get(1) + " (pg_backend_pid())");
                    }
                    if (firstSeen.contains(secondPid)) {
                        return Future.succeededFuture("two open connections ran in the same server session " + secondPid
                                + " (pg_backend_pid())");
                    }
                    return rounds(first, second, left - 1);
                });
    }

    private static Future<Integer> session(SqlConnection connection) {
        return connection.query(SESSION).execute().map(rows -> rows.iterator()
                .next()
                .getInteger(0));
    }
}
