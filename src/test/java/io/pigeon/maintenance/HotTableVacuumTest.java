package io.pigeon.maintenance;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.testing.Api;
import io.pigeon.testing.Db;
import io.quarkus.test.junit.QuarkusTest;
import io.pigeon.pool.PoolClients;
import io.pigeon.pool.PoolService;
import io.pigeon.pool.PoolSpec;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.SqlClient;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

@QuarkusTest
class HotTableVacuumTest {

    @Inject
    HotTableVacuum vacuum;

    @Inject
    Pool pool;

    @Inject
    PoolService pools;

    @Inject
    PoolClients clients;

    @Test
    void vacuumsTheMessageAndClaimTables() throws InterruptedException {
        Api.newProject();
        long before = vacuums("messages") + vacuums("claims");
        vacuum.vacuum().await().indefinitely();
        // Statistics reach other sessions shortly after the vacuum ends.
        long after = before;
        for (int i = 0; i < 50 && after < before + 2; i++) {
            Thread.sleep(100);
            after = vacuums("messages") + vacuums("claims");
        }
        assertTrue(after >= before + 2, "both tables vacuumed: " + before + " -> " + after);
    }

    @Test
    void vacuumsEveryRegisteredPoolToo() throws InterruptedException {
        Api.newProject();
        String name = "vacuumed-" + java.util.UUID.randomUUID().toString().substring(0, 8);
        pools.register(name, new PoolSpec(Db.newDatabase(pool), 1L, null, null)).await().indefinitely();
        SqlClient server = clients.of(name).await().indefinitely();
        try {
            long before = vacuums(server, "messages");
            vacuum.vacuum().await().indefinitely();
            long after = before;
            for (int i = 0; i < 50 && after <= before; i++) {
                Thread.sleep(100);
                after = vacuums(server, "messages");
            }
            assertTrue(after > before, "the pool's messages table vacuumed: " + before + " -> " + after);
        } finally {
            pools.delete(name).await().indefinitely();
        }
    }

    /** Manual vacuums of the table (autovacuum counts elsewhere). */
    private long vacuums(String table) {
        return vacuums(pool, table);
    }

    private static long vacuums(SqlClient db, String table) {
        return db.preparedQuery("SELECT vacuum_count FROM pg_stat_user_tables WHERE relname = $1")
                .execute(io.vertx.mutiny.sqlclient.Tuple.of(table)).await().indefinitely().iterator().next().getLong(0);
    }
}
