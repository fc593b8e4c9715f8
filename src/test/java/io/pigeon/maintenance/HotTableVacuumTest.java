package io.pigeon.maintenance;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.pool.PoolClients;
import io.pigeon.pool.PoolService;
import io.pigeon.pool.PoolSpec;
import io.pigeon.testing.Api;
import io.pigeon.testing.Db;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.inject.Inject;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
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
        assertVacuumed(pool, "messages", "claims", "dispatch_groups", "dispatch_items");
    }

    @Test
    void vacuumsEveryRegisteredPoolToo() throws InterruptedException {
        Api.newProject();
        String name = "vacuumed-" + UUID.randomUUID().toString().substring(0, 8);
        pools.register(name, new PoolSpec(Db.newDatabase(pool), 1L, null, null))
                .await()
                .indefinitely();
        SqlClient server = clients.of(name).await().indefinitely();
        try {
            assertVacuumed(server, "messages", "claims");
        } finally {
            pools.delete(name).await().indefinitely();
        }
    }

    /**
     * Runs the vacuum until every table's count of manual vacuums has grown, at most three times: a table another
     * session holds at that moment (autovacuum, an analyze, a scheduled run) is skipped by design (SKIP_LOCKED) and
     * taken by the next run. Statistics reach other sessions shortly after a vacuum ends, hence the polling.
     */
    private void assertVacuumed(SqlClient db, String... tables) throws InterruptedException {
        Map<String, Long> before = new HashMap<>();
        for (String table : tables) {
            before.put(table, vacuums(db, table));
        }
        Set<String> waiting = new TreeSet<>(before.keySet());
        for (int run = 0; run < 3 && !waiting.isEmpty(); run++) {
            vacuum.vacuum().await().indefinitely();
            for (int i = 0; i < 30 && !waiting.isEmpty(); i++) {
                Thread.sleep(100);
                waiting.removeIf(table -> vacuums(db, table) > before.get(table));
            }
        }
        assertTrue(waiting.isEmpty(), "tables not vacuumed in three runs: " + waiting);
    }

    /** Manual vacuums of the table (autovacuum counts elsewhere). */
    private static long vacuums(SqlClient db, String table) {
        return db.preparedQuery("SELECT vacuum_count FROM pg_stat_user_tables WHERE relname = $1")
                .execute(Tuple.of(table))
                .await()
                .indefinitely()
                .iterator()
                .next()
                .getLong(0);
    }
}
