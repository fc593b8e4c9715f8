package io.pigeon.health;

import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.SqlClient;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;

/** Asks the database for a trivial answer, within a bound, so that health never hangs on a dead server. */
@ApplicationScoped
public class DatabaseProbe {

    static final Duration TIMEOUT = Duration.ofSeconds(2);

    private static final String PING = "SELECT 1";

    private final Pool pool;

    public DatabaseProbe(Pool pool) {
        this.pool = pool;
    }

    public Uni<Boolean> reachable() {
        return reachable(pool);
    }

    /** Whether {@code database} answers within {@link #TIMEOUT}; never fails. */
    static Uni<Boolean> reachable(SqlClient database) {
        return database.query(PING)
                .execute()
                .ifNoItem()
                .after(TIMEOUT)
                .fail()
                .map(rows -> true)
                .onFailure()
                .recoverWithItem(false);
    }
}
