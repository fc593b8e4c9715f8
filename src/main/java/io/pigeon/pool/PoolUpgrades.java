package io.pigeon.pool;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.subscription.Cancellable;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jboss.logging.Logger;

/**
 * Brings every registered pool's database to this version's schema at start-up, as Quarkus's Flyway brings the
 * configured one (which it does before the start-up event): without this, a pool migrated only when it was
 * registered keeps an older schema after an upgrade and its queues fail. It runs in the background, so neither the
 * start nor readiness waits for a pool, and a pool that cannot be reached is retried on its own.
 */
@ApplicationScoped
public class PoolUpgrades {

    private static final Logger LOG = Logger.getLogger(PoolUpgrades.class);
    /** Pools migrated at once: each holds a worker thread for up to {@link PoolSchemas#MIGRATION_DEADLINE}. */
    static final int AT_ONCE = 4;
    /**
     * A pool that cannot be reached is tried again after 30 s, then after twice as long each time, at most 5 min
     * apart, until it is migrated, deleted, or the application stops. Never given up: until it is migrated its queues
     * fail, and an attempt costs only a refused connection and a log line.
     */
    static final Duration FIRST_RETRY = Duration.ofSeconds(30);

    static final Duration LAST_RETRY = Duration.ofMinutes(5);

    /** What one attempt at a pool did. */
    public enum Outcome {
        /** Its database has this version's schema. */
        MIGRATED,
        /** It names the configured database (a row from before that was refused): Quarkus's Flyway migrated it. */
        CATALOGUE,
        /** Its stored uri breaks a rule and is never given to a driver: a new uri (PATCH) migrates it. */
        INVALID,
        /** It was deleted since it was listed. */
        GONE,
        /** Its server did not answer or could not be migrated (logged): to be tried again. */
        UNREACHABLE
    }

    private final PoolStore store;
    private final PoolSchemas schemas;
    private final Pool catalogue;
    /** The start-up pass and each pool's retries, cancelled when the application stops. */
    private final Set<Cancellable> retries = ConcurrentHashMap.newKeySet();
    /** Pools whose last attempt left them without this version's schema: unreachable, or an unreadable uri. */
    private final Set<String> behind = ConcurrentHashMap.newKeySet();

    public PoolUpgrades(PoolStore store, PoolSchemas schemas, Pool catalogue, MeterRegistry registry) {
        this.store = store;
        this.schemas = schemas;
        this.catalogue = catalogue;
        // An operator alerts on it: until a pool is migrated its queues fail.
        Gauge.builder("pigeon.pools.unmigrated", behind, Set::size)
                .description("Pools this replica's last attempt could not migrate to this version's schema")
                .register(registry);
    }

    void start(@Observes StartupEvent started) {
        retries.add(upgradeRegistered()
                .onFailure()
                .retry()
                .withBackOff(FIRST_RETRY, LAST_RETRY)
                .indefinitely()
                .subscribe()
                .with(
                        outcomes -> outcomes.forEach((name, outcome) -> {
                            if (outcome == Outcome.UNREACHABLE) {
                                retry(name);
                            }
                        }),
                        failure -> LOG.errorf("The registered pools were not migrated: %s", failure.toString())));
    }

    void stop(@Observes ShutdownEvent stopping) {
        retries.forEach(Cancellable::cancel);
        retries.clear();
    }

    /**
     * One attempt at every registered pool, {@link #AT_ONCE} at a time, each whatever becomes of the others: what
     * each did, by name. Fails only when the catalogue cannot be read.
     */
    public Uni<Map<String, Outcome>> upgradeRegistered() {
        return store.names(catalogue)
                .onItem()
                .transformToMulti(names -> Multi.createFrom().iterable(names))
                .onItem()
                .transformToUni(name -> upgrade(name)
                        .onFailure()
                        .recoverWithItem(Outcome.UNREACHABLE)
                        .map(outcome -> Map.entry(name, outcome)))
                .merge(AT_ONCE)
                .collect()
                .asMap(Map.Entry::getKey, Map.Entry::getValue)
                // A pool deleted since its last attempt is no longer behind.
                .invoke(outcomes -> behind.retainAll(outcomes.keySet()));
    }

    /** Tries the pool again, with a growing pause, until an attempt ends otherwise than unreachable. */
    private void retry(String name) {
        retries.add(upgrade(name)
                .onFailure()
                .retry()
                .withBackOff(FIRST_RETRY, LAST_RETRY)
                .indefinitely()
                .subscribe()
                .with(outcome -> {}, failure -> {}));
    }

    /**
     * Migrates the named pool's database as the catalogue names it now (read again at every attempt, so a pool
     * deleted or moved meanwhile is followed), its group ids left where they are. Fails when it cannot be reached.
     */
    Uni<Outcome> upgrade(String name) {
        return catalogue
                .query(PoolSchemas.IDENTITY)
                .execute()
                .map(rows -> rows.iterator().next().getString(0))
                .chain(identity -> store.storedUri(catalogue, name).chain(stored -> upgrade(name, stored, identity)))
                .invoke(outcome -> {
                    if (outcome == Outcome.INVALID) {
                        behind.add(name);
                    } else {
                        behind.remove(name);
                    }
                })
                .onFailure()
                .invoke(unreachable -> behind.add(name));
    }

    private Uni<Outcome> upgrade(String name, Optional<String> stored, String catalogueIdentity) {
        if (stored.isEmpty()) {
            return Uni.createFrom().item(Outcome.GONE);
        }
        PoolUri uri;
        try {
            uri = PoolUri.stored(stored.get());
        } catch (RuntimeException unreadable) {
            // The refusal names the rule, never the uri (which may hold the password).
            LOG.warnf("Pool %s is not migrated: its stored uri cannot be read (%s)", name, unreadable.getMessage());
            return Uni.createFrom().item(Outcome.INVALID);
        }
        Optional<String> broken = uri.brokenRule();
        if (broken.isPresent()) {
            LOG.warnf(
                    "Pool %s (%s) is not migrated: its stored uri is not given to a driver (%s)",
                    name, uri.redacted(), broken.get());
            return Uni.createFrom().item(Outcome.INVALID);
        }
        return schemas.upgrade(uri, catalogueIdentity).map(migrated -> {
            if (migrated) {
                LOG.infof("Pool %s (%s) has this version's schema", name, uri.redacted());
                return Outcome.MIGRATED;
            }
            LOG.warnf("Pool %s names the configured database, which was migrated already", name);
            return Outcome.CATALOGUE;
        });
    }
}
