package io.pigeon.testing;

import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.RowSet;
import io.vertx.mutiny.sqlclient.Tuple;
import java.net.URI;
import java.util.Arrays;
import java.util.UUID;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

/** Direct SQL for tests that must move the database clock's deadlines or look at stored rows. */
public final class Db {

    private Db() {}

    public static RowSet<Row> run(Pool pool, String sql, Object... params) {
        return pool.preparedQuery(sql)
                .execute(Tuple.from(Arrays.asList(params)))
                .await()
                .indefinitely();
    }

    public static long count(Pool pool, String sql, Object... params) {
        return run(pool, sql, params).iterator().next().getLong(0);
    }

    /**
     * A new, empty database on the tests' PostgreSQL server, as a pool URI (postgresql://user:password@host:port/db)
     * with the server's credentials.
     */
    public static String newDatabase(Pool pool) {
        String database = "pool_" + UUID.randomUUID().toString().replace("-", "");
        run(pool, "CREATE DATABASE " + database);
        return onTheTestServer(database);
    }

    /** The configured database (the catalogue) as a pool URI, with the server's credentials. */
    public static String configuredDatabase() {
        String url = ConfigProvider.getConfig().getValue("quarkus.datasource.reactive.url", String.class);
        return onTheTestServer(URI.create(url).getPath().substring(1));
    }

    private static String onTheTestServer(String database) {
        Config config = ConfigProvider.getConfig();
        URI server = URI.create(config.getValue("quarkus.datasource.reactive.url", String.class));
        return "postgresql://" + config.getValue("quarkus.datasource.username", String.class) + ":"
                + config.getValue("quarkus.datasource.password", String.class) + "@" + server.getHost() + ":"
                + server.getPort() + "/" + database;
    }
}
