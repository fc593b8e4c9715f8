package io.pigeon.maintenance;

import io.quarkus.scheduler.Scheduled;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

/**
 * Vacuums the tables every message and every delivery passes through, every few seconds. Each message leaves two dead
 * row versions (its claim, its delete); PostgreSQL's autovacuum wakes at most once a minute per database,
 * and in that minute a busy queue leaves hundreds of thousands of dead rows that every claim and listing
 * must step over, and that grow the table (measured: about 600 MB after two minutes of the full cycle).
 * The delivery engine's groups churn the same way (inserted, leased, deleted).
 * SKIP_LOCKED makes a replica skip a table another replica is vacuuming, so replicas never queue up.
 */
@ApplicationScoped
public class HotTableVacuum {

    private static final Logger LOG = Logger.getLogger(HotTableVacuum.class);

    private final Pool pool;

    public HotTableVacuum(Pool pool) {
        this.pool = pool;
    }

    @Scheduled(every = "${pigeon.vacuum.interval}", delayed = "10s",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    Uni<Void> vacuum() {
        return pool.query("VACUUM (ANALYZE, SKIP_LOCKED) messages, claims, dispatch_groups, dispatch_items").execute()
                .onFailure().invoke(e -> LOG.warnf("Vacuum of the message tables failed, will retry: %s", e.toString()))
                .onFailure().recoverWithNull()
                .replaceWithVoid();
    }
}
