package io.pigeon.config;

import io.vertx.core.Handler;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.jboss.logging.Logger;

/**
 * The server settings Pigeon's connections run with ({@code quarkus.datasource.reactive.additional-properties.*}:
 * {@code jit}, {@code enable_bitmapscan}, {@code plan_cache_mode}), set by one statement when a pool opens a
 * connection rather than sent as start-up parameters. PgBouncer forwards only the few start-up parameters it tracks
 * and refuses a connection that sends any other ({@code unsupported startup parameter: jit}), so sent at start-up they
 * made every connection through PgBouncer fail; set in the session they reach the server through a session-mode
 * PgBouncer as they reach PostgreSQL directly (docs/operations.md, PgBouncer).
 */
public final class SessionSettings {

    private static final Logger LOG = Logger.getLogger(SessionSettings.class);

    /**
     * The start-up parameters PgBouncer passes on (it tracks these per client and sets them on the server connection it
     * lends); {@code extra_float_digits}, which the client always sends, PgBouncer must be told to ignore. Names are
     * compared in lower case, as PostgreSQL does.
     */
    static final Set<String> PASSED_AT_START_UP = Set.of(
            "application_name",
            "client_encoding",
            "datestyle",
            "timezone",
            "standard_conforming_strings",
            "extra_float_digits");

    /** Every setting in one round trip, by parameters: no name or value is ever spliced into SQL. */
    static final String APPLY =
            "SELECT set_config(name, setting, false) FROM unnest($1::text[], $2::text[]) AS s(name, setting)";

    private final Map<String, String> settings;

    private SessionSettings(Map<String, String> settings) {
        this.settings = Map.copyOf(settings);
    }

    /**
     * Takes the settings out of {@code options}' start-up parameters (the ones PgBouncer passes on stay) and returns
     * them, to be set on each connection by {@link #onConnect()}.
     */
    public static SessionSettings takenFrom(PgConnectOptions options) {
        Map<String, String> kept = new HashMap<>();
        Map<String, String> moved = new HashMap<>();
        options.getProperties().forEach((name, value) -> {
            if (PASSED_AT_START_UP.contains(name.toLowerCase(Locale.ROOT))) {
                kept.put(name, value);
            } else {
                moved.put(name, value);
            }
        });
        options.setProperties(kept);
        return new SessionSettings(moved);
    }

    /** The settings by name. */
    public Map<String, String> settings() {
        return settings;
    }

    /**
     * What a pool calls with each connection it opens: sets the settings, then hands the connection to the pool. A
     * setting the server refuses is logged; the connection still serves (with the server's default for it), as a
     * statement would rather run with a worse plan than not at all.
     */
    public Handler<SqlConnection> onConnect() {
        if (settings.isEmpty()) {
            return SqlConnection::close;
        }
        List<String> names = List.copyOf(settings.keySet());
        String[] nameArray = names.toArray(String[]::new);
        String[] valueArray = names.stream().map(settings::get).toArray(String[]::new);
        return connection -> connection
                .preparedQuery(APPLY)
                .execute(Tuple.tuple().addArrayOfString(nameArray).addArrayOfString(valueArray))
                .onComplete(done -> {
                    if (done.failed()) {
                        LOG.warnf(
                                "A new database connection could not take Pigeon's session settings %s: %s",
                                settings, done.cause().getMessage());
                    }
                    connection.close();
                });
    }
}
