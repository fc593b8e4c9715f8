package io.pigeon.maintenance;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.testing.Api;
import io.pigeon.testing.Db;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

@QuarkusTest
class HotTableVacuumTest {

    @Inject
    HotTableVacuum vacuum;

    @Inject
    Pool pool;

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

    /** Manual vacuums of the table (autovacuum counts elsewhere). */
    private long vacuums(String table) {
        return Db.count(pool, "SELECT vacuum_count FROM pg_stat_user_tables WHERE relname = $1", table);
    }
}
