package io.pigeon.pool;

import io.pigeon.config.StatementCachePoolCreator;
import io.pigeon.rules.Rejection;
import io.pigeon.storage.DatabaseAddresses;
import io.quarkus.scheduler.Scheduled;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.pgclient.PgBuilder;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.sqlclient.PoolOptions;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * One connection pool per registered pool, made on first use from the catalogue, so that a pool registered through
 * another replica is found without a restart. Every replica re-reads the catalogue every few seconds and closes the
 * clients of pools deleted or moved to another server (the next use connects to the new one). Each client connects
 * as the configured database's pool does (statement cache, server settings, timeouts), to its pool's server with its
 * pool's credentials.
 */
@ApplicationScoped
public class PoolClients implements DatabaseAddresses {

    private static final Logger LOG = Logger.getLogger(PoolClients.class);

    private static final String REGISTERED = "SELECT name, uri FROM pools ORDER BY name";
    private static final String EVERY_POOL = "SELECT name, uri FROM pools";

    /** A client and the address it was made for. */
    private record Client(String uri, Pool pool, PgConnectOptions options) {}

    /** A pool that the catalogue does not hold (deleted, or never registered). */
    public static final class UnknownPool extends RuntimeException {
        private static final long serialVersionUID = 1L;

        private final String pool;

        UnknownPool(String name) {
            super("Pool " + name + " is not registered", null, false, false);
            this.pool = name;
        }

        public String pool() {
            return pool;
        }
    }

    private final Map<String, Client> clients = new ConcurrentHashMap<>();
    private final Pool catalogue;
    private final PoolStore store;
    private final Vertx vertx;
    private final StatementCachePoolCreator configured;
    private final int maxConnections;

    public PoolClients(
            Pool catalogue,
            PoolStore store,
            Vertx vertx,
            StatementCachePoolCreator configured,
            @ConfigProperty(name = "quarkus.datasource.reactive.max-size", defaultValue = "20") int maxConnections) {
        this.catalogue = catalogue;
        this.store = store;
        this.vertx = vertx;
        this.configured = configured;
        this.maxConnections = maxConnections;
    }

    /** The client of the named pool; fails with {@link UnknownPool} when the catalogue has no such pool. */
    public Uni<Pool> of(String name) {
        Client known = clients.get(name);
        if (known != null) {
            return Uni.createFrom().item(known.pool());
        }
        return store.storedUri(catalogue, name).map(stored -> {
            String uri = stored.orElseThrow(() -> new UnknownPool(name));
            // Two first uses at once make one client: the loser's is never made.
            return clients.computeIfAbsent(name, ignored -> client(uri)).pool();
        });
    }

    /**
     * A database that holds queues: the configured one ({@code name} null) or a registered pool, with the options its
     * client connects with (shared: copy them before changing them).
     */
    public record Named(String name, Pool client, PgConnectOptions options) {
        public boolean home() {
            return name == null;
        }

        /** How a log line names it. */
        public String describe() {
            return name == null ? "the configured database" : "pool " + name;
        }
    }

    /**
     * Every database that holds queues, for work done on each: the configured one first, then every registered pool
     * in name order, as the catalogue holds them now.
     */
    public Uni<List<Named>> everyDatabase() {
        return registered().map(pools -> {
            List<Named> every = new ArrayList<>(pools.size() + 1);
            every.add(home());
            every.addAll(pools);
            return every;
        });
    }

    /**
     * The database whose client is {@code client}, as {@link #everyDatabase()} holds them now: for work that needs its
     * connect options (a connection of its own, such as a LISTEN). Fails with 503 when none is (any longer): its pool
     * was moved or removed since the client was handed out.
     */
    public Uni<Named> holding(SqlClient client) {
        return everyDatabase().map(every -> every.stream()
                .filter(database -> database.client() == client)
                .findFirst()
                .orElseThrow(() -> new Rejection(
                        Rejection.Reason.UNAVAILABLE, "The queue's database is being moved; try again.")));
    }

    /** The address of the database {@link #holding} finds: where {@code DatabaseNotices} LISTENs. */
    @Override
    public Uni<Address> addressOf(SqlClient client) {
        return holding(client).map(database -> new Address(database.describe(), database.options()));
    }

    /**
     * {@code work} on every database that holds queues, all at once; the results in {@link #everyDatabase()}'s order.
     * Fails as soon as one fails: work that must go on past a failing pool recovers inside {@code work}.
     */
    public <T> Uni<List<T>> onEvery(Function<Named, Uni<T>> work) {
        return everyDatabase()
                .chain(databases ->
                        Uni.join().all(databases.stream().map(work).toList()).andFailFast());
    }

    /** The configured database, which holds the catalogue and the queues placed at home. */
    public Named home() {
        // Touching the pool creates it (it is created lazily), and with it the options it connects with.
        catalogue.getDelegate();
        return new Named(null, catalogue, configured.connectOptions());
    }

    private Uni<List<Named>> registered() {
        return catalogue.query(REGISTERED).execute().map(rows -> {
            List<Named> all = new ArrayList<>(rows.size());
            for (Row row : rows) {
                String name = row.getString("name");
                String uri = row.getString("uri");
                Client client = clients.compute(
                        name,
                        (ignored, known) ->
                                known != null && known.uri().equals(uri) ? known : replace(name, known, uri));
                all.add(new Named(name, client.pool(), client.options()));
            }
            return all;
        });
    }

    private Client replace(String name, Client stale, String uri) {
        if (stale != null) {
            LOG.infof("Pool %s moved: its connections are closed", name);
            stale.pool().close().subscribe().with(ignored -> {}, failure -> {});
        }
        return client(uri);
    }

    private Client client(String uri) {
        PgConnectOptions options = connectOptions(PoolUri.stored(uri));
        return new Client(
                uri,
                Pool.newInstance(PgBuilder.pool()
                        .with(new PoolOptions().setMaxSize(maxConnections))
                        .connectingTo(options)
                        .withConnectHandler(configured.sessionSettings().onConnect())
                        .using(vertx.getDelegate())
                        .build()),
                options);
    }

    /** Closes the clients of pools that are gone or now name another server. */
    @Scheduled(
            every = "5s",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP,
            skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    Uni<Void> refresh() {
        if (clients.isEmpty()) {
            return Uni.createFrom().voidItem();
        }
        return catalogue.query(EVERY_POOL).execute().map(rows -> {
            Map<String, String> registered = new HashMap<>();
            for (Row row : rows) {
                registered.put(row.getString("name"), row.getString("uri"));
            }
            clients.forEach((name, client) -> {
                if (!client.uri().equals(registered.get(name)) && clients.remove(name, client)) {
                    LOG.infof("Pool %s was deleted or moved: its connections are closed", name);
                    client.pool().close().subscribe().with(ignored -> {}, failure -> {});
                }
            });
            return null;
        });
    }

    private PgConnectOptions connectOptions(PoolUri uri) {
        PgConnectOptions base = configured.connectOptions();
        // The pool's own server, database, credentials, sslmode and application name, each set as a field from the
        // checked parts (never a URL the client would parse again); the rest as the configured database's pool
        // connects (statement cache, start-up parameters, timeouts; the server settings are set once connected).
        PgConnectOptions options = uri.connectOptions()
                .setCachePreparedStatements(base.getCachePreparedStatements())
                .setPreparedStatementCacheMaxSize(base.getPreparedStatementCacheMaxSize())
                .setPreparedStatementCacheSqlLimit(StatementCachePoolCreator.STATEMENT_CACHE_SQL_LIMIT)
                .setConnectTimeout(base.getConnectTimeout())
                .setIdleTimeout(base.getIdleTimeout())
                .setIdleTimeoutUnit(base.getIdleTimeoutUnit());
        Map<String, String> properties = new HashMap<>(base.getProperties());
        properties.putAll(options.getProperties());
        options.setProperties(properties);
        return options;
    }

    @PreDestroy
    void close() {
        clients.values().forEach(client -> client.pool().closeAndAwait());
        clients.clear();
    }
}
