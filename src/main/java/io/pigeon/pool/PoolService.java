package io.pigeon.pool;

import io.pigeon.rules.Paging;
import io.pigeon.rules.Rejection;
import io.pigeon.storage.DatabaseFailures;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The rules of pools (Zaqar's admin API): names, bounds, a registered server reachable and migrated before it is
 * stored, one pool per server, and no deleting a pool that holds queues or is the last of its flavor.
 */
@ApplicationScoped
public class PoolService {

    /** Zaqar's default and largest page of pools and flavors. */
    public static final int MAX_PAGE_SIZE = 20;

    public static final long MAX_WEIGHT = 4294967295L;
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.-]{1,64}");
    private static final String HOLDS_QUEUES =
            "SELECT EXISTS (SELECT 1 FROM queues) OR EXISTS (SELECT 1 FROM dispatch_groups) AS holds";
    private static final String ID_BLOCK_AND_IDENTITY =
            "SELECT nextval('pool_id_blocks') AS block, (" + PoolSchemas.IDENTITY + ") AS identity";

    private final PoolStore store;
    private final PoolSchemas schemas;
    private final Pool catalogue;
    private final PoolClients clients;
    private final Placements placements;

    public PoolService(
            PoolStore store, PoolSchemas schemas, Pool catalogue, PoolClients clients, Placements placements) {
        this.clients = clients;
        this.placements = placements;
        this.store = store;
        this.schemas = schemas;
        this.catalogue = catalogue;
    }

    /** A pool's or flavor's name: 1 to 64 letters, digits, '_', '-' and '.', so that it can stand in a path. */
    static String checkName(String kind, String name) {
        if (name == null || !NAME.matcher(name).matches()) {
            throw Rejection.invalidRequest(
                    kind + " names are 1 to 64 bytes of ASCII letters, digits, underscores, " + "hyphens and dots.");
        }
        return name;
    }

    static int pageSize(Integer limit) {
        int size = limit == null ? Paging.DEFAULT_PAGE_SIZE : limit;
        if (size < 1 || size > MAX_PAGE_SIZE) {
            throw Rejection.invalidRequest("Limit must be at least 1 and no greater than " + MAX_PAGE_SIZE + ".");
        }
        return size;
    }

    /**
     * Registers (or replaces) the pool: its server must answer and take Pigeon's schema first, and no other pool may
     * name the same server. Nothing is stored when either fails.
     */
    public Uni<Void> register(String name, PoolSpec spec) {
        checkName("Pool", name);
        if (spec.uri() == null || spec.weight() == null) {
            throw Rejection.invalidBody("A pool needs `uri` and `weight`.");
        }
        PoolUri uri = PoolUri.parse(spec.uri());
        long weight = checkWeight(spec.weight());
        String flavor = spec.flavor() == null || spec.flavor().isEmpty() ? null : checkName("Flavor", spec.flavor());
        String options = spec.options() == null ? "{}" : spec.options().toString();
        return refuseSharedServer(name, uri)
                .chain(() -> reachable(uri))
                .chain(() -> store.upsert(catalogue, name, uri, weight, flavor, options))
                .onFailure(DatabaseFailures::isUniqueViolation)
                .transform(e -> uriInUse());
    }

    public Uni<Optional<StoragePool>> get(String name) {
        return store.get(catalogue, checkName("Pool", name));
    }

    public Uni<List<StoragePool>> list(String marker, Integer limit) {
        return store.list(catalogue, marker == null ? "" : marker, pageSize(limit));
    }

    /** Changes the fields the patch names; a new uri must be reachable. Empty when there is no such pool. */
    public Uni<Optional<StoragePool>> update(String name, PoolSpec patch) {
        checkName("Pool", name);
        if (patch.uri() == null && patch.weight() == null && patch.flavor() == null && patch.options() == null) {
            throw Rejection.invalidBody("One of `uri`, `weight`, `flavor`, or `options` needs to be specified");
        }
        Long weight = patch.weight() == null ? null : checkWeight(patch.weight());
        String flavor = patch.flavor() == null || patch.flavor().isEmpty()
                ? patch.flavor()
                : checkName("Flavor", patch.flavor());
        String options = patch.options() == null ? null : patch.options().toString();
        if (patch.uri() == null) {
            return store.update(catalogue, name, null, weight, flavor, options);
        }
        PoolUri uri = PoolUri.parse(patch.uri());
        return store.get(catalogue, name)
                .chain(found -> found.isEmpty()
                        ? Uni.createFrom().item(Optional.<StoragePool>empty())
                        : refuseSharedServer(name, uri)
                                .chain(() -> reachable(uri))
                                .chain(() -> store.update(catalogue, name, uri.text(), weight, flavor, options)))
                .onFailure(DatabaseFailures::isUniqueViolation)
                .transform(e -> uriInUse());
    }

    /**
     * Deletes the pool (a pool that does not exist is deleted already), unless its server still holds queues or it is
     * the last pool of its flavor. A server that does not answer cannot tell: 503, nothing deleted.
     */
    public Uni<Void> delete(String name) {
        checkName("Pool", name);
        return store.get(catalogue, name)
                .chain(found -> found.isEmpty()
                        ? Uni.createFrom().voidItem()
                        : holdsQueues(name).chain(holds -> {
                            if (holds) {
                                throw new Rejection(
                                        Rejection.Reason.IN_USE,
                                        "Pool " + name + " holds queues or delivery groups; it cannot be deleted.");
                            }
                            return store.delete(catalogue, name).map(refused -> {
                                refused.ifPresent(refusal -> {
                                    throw new Rejection(
                                            Rejection.Reason.IN_USE,
                                            "This pool is used by flavors " + refusal.flavor()
                                                    + "; It cannot be deleted.");
                                });
                                placements.forget(name);
                                return null;
                            });
                        }));
    }

    private Uni<Boolean> holdsQueues(String name) {
        return clients.of(name)
                .chain(db -> db.query(HOLDS_QUEUES).execute())
                .map(rows -> rows.iterator().next().getBoolean("holds"))
                .onFailure(DatabaseFailures::isUnavailable)
                .transform(e -> new Rejection(
                        Rejection.Reason.UNAVAILABLE,
                        "Pool " + name + " cannot be reached to tell whether it holds queues. Please try again."));
    }

    private static long checkWeight(long weight) {
        if (weight < 0 || weight > MAX_WEIGHT) {
            throw Rejection.invalidBody("weight must be an integer from 0 to " + MAX_WEIGHT + ".");
        }
        return weight;
    }

    private Uni<Void> refuseSharedServer(String name, PoolUri uri) {
        return store.otherUsing(catalogue, name, uri).map(other -> {
            if (other.isPresent()) {
                throw uriInUse();
            }
            return null;
        });
    }

    /**
     * Migrates the pool's server, its group ids moved to a block of their own (they never meet another's). The
     * configured database is refused (409): as a pool too, its queues would be listed and swept twice.
     */
    private Uni<Void> reachable(PoolUri uri) {
        return catalogue
                .query(ID_BLOCK_AND_IDENTITY)
                .execute()
                .map(rows -> rows.iterator().next())
                .chain(row -> schemas.migrate(
                        uri, row.getLong("block") << PoolSchemas.ID_BLOCK_BITS, row.getString("identity")))
                .onFailure()
                .transform(e -> Rejection.invalidBody("cannot connect to " + uri.redacted()))
                .map(migrated -> {
                    if (!migrated) {
                        throw new Rejection(
                                Rejection.Reason.CONFLICT,
                                "The database URI names the configured database, which holds the catalogue.");
                    }
                    return null;
                });
    }

    private static Rejection uriInUse() {
        return new Rejection(Rejection.Reason.CONFLICT, "The database URI is in use by another pool.");
    }
}
