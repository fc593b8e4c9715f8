package io.pigeon.testing;

import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.RowSet;
import io.vertx.mutiny.sqlclient.Tuple;
import java.util.Arrays;

/** Direct SQL for tests that must move the database clock's deadlines or look at stored rows. */
public final class Db {

    private Db() {
    }

    public static RowSet<Row> run(Pool pool, String sql, Object... params) {
        return pool.preparedQuery(sql).execute(Tuple.from(Arrays.asList(params))).await().indefinitely();
    }

    public static long count(Pool pool, String sql, Object... params) {
        return run(pool, sql, params).iterator().next().getLong(0);
    }
}
