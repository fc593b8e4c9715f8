package io.pigeon.maintenance;

import io.pigeon.pool.PoolClients;
import io.quarkus.scheduler.Scheduled;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;
import org.jboss.logging.Logger;

/**
 * Vacuums the tables every message and every delivery passes through, every few seconds. Each message leaves two dead
 * row versions (its claim, its delete); PostgreSQL's autovacuum wakes at most once a minute per database,
 * and in that minute a busy queue leaves hundreds of thousands of dead rows that every claim and listing
 * must step over, and that grow the table (measured: about 600 MB after two minutes of the full cycle).
 * The delivery engine's groups churn the same way (inserted, leased, deleted).
 * SKIP_LOCKED makes a replica skip a table another replica is vacuuming, so replicas never queue up. Every database
 * that holds queues is vacuumed: the configured one and each registered pool.
 */
@ApplicationScoped
public class HotTableVacuum {

    private static final Logger LOG = Logger.getLogger(HotTableVacuum.class);

    private static final String VACUUM =
            "VACUUM (ANALYZE, SKIP_LOCKED) messages, claims, dispatch_groups, dispatch_items";

    private final PoolClients poolClients;

    public HotTableVacuum(PoolClients poolClients) {
        this.poolClients = poolClients;
    }

    /** Vacuums the configured database and every registered pool; one that fails is logged and does not stop the rest. */
    @Scheduled(
            every = "${pigeon.vacuum.interval}",
            delayed = "10s",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    Uni<Void> vacuum() {
        // Without the catalogue (the configured database) the configured database alone is tried, and logs why.
        return poolClients
                .everyDatabase()
                .onFailure()
                .recoverWithItem(List.of(poolClients.home()))
                .chain(databases -> Uni.join()
                        .all(databases.stream()
                                .map(database -> vacuum(database.describe(), database.client()))
                                .toList())
                        .andCollectFailures()
                        .replaceWithVoid());
    }

    private static Uni<Void> vacuum(String database, SqlClient db) {
        return db.query(VACUUM)
                .execute()
                .onFailure()
                .invoke(e ->
                        LOG.warnf("Vacuum of the message tables of %s failed, will retry: %s", database, e.toString()))
                .onFailure()
                .recoverWithNull()
                .replaceWithVoid();
    }
}
