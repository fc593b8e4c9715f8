package io.pigeon.pool;

import io.pigeon.rules.Rejection;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;
import java.util.Optional;

/**
 * The rules of flavors: a named class of pools a queue may ask for. Unlike Zaqar's, a flavor is the operator's and
 * the same for every project (Zaqar scopes a flavor to a project, yet its pools to none: two projects' flavors of one
 * name share their pools), and a PUT sets its pools rather than adding to them.
 */
@ApplicationScoped
public class FlavorService {

    /** What every pool offers (Zaqar's capability names; PostgreSQL gives all of them). */
    public static final List<String> CAPABILITIES = List.of("FIFO", "CLAIMS", "DURABILITY", "AOD", "HIGH_THROUGHPUT");

    private final FlavorStore store;
    private final Pool catalogue;

    public FlavorService(FlavorStore store, Pool catalogue) {
        this.store = store;
        this.catalogue = catalogue;
    }

    /** A flavor's capabilities: those of its pools, none without pools. */
    public static List<String> capabilities(Flavor flavor) {
        return flavor.pools().isEmpty() ? List.of() : CAPABILITIES;
    }

    /** Creates the flavor (or sets the pools of the existing one); every pool named must exist. */
    public Uni<Void> create(String name, List<String> pools) {
        PoolService.checkName("Flavor", name);
        checkPools(pools);
        return store.replace(catalogue, name, pools, false).map(replaced -> {
            if (!replaced.missingPools().isEmpty()) {
                throw new Rejection(
                        Rejection.Reason.UNABLE_TO_CREATE,
                        "Flavor " + name + " could not be created, error:Pool "
                                + String.join(", ", replaced.missingPools()) + " does not exist");
            }
            return null;
        });
    }

    /** Sets the flavor's pools; empty when there is no such flavor. */
    public Uni<Optional<Flavor>> update(String name, List<String> pools) {
        PoolService.checkName("Flavor", name);
        if (pools == null) {
            throw Rejection.invalidBody("`pool_list` needs to be specified");
        }
        checkPools(pools);
        return store.replace(catalogue, name, pools, true).chain(replaced -> {
            if (!replaced.existed()) {
                return Uni.createFrom().item(Optional.<Flavor>empty());
            }
            if (!replaced.missingPools().isEmpty()) {
                throw new Rejection(
                        Rejection.Reason.UNABLE_TO_CREATE,
                        "Flavor " + name + " cant be updated, error:Pool " + String.join(", ", replaced.missingPools())
                                + " does not exist");
            }
            return store.get(catalogue, name);
        });
    }

    public Uni<Optional<Flavor>> get(String name) {
        return store.get(catalogue, PoolService.checkName("Flavor", name));
    }

    public Uni<List<Flavor>> list(String marker, Integer limit) {
        return store.list(catalogue, marker == null ? "" : marker, PoolService.pageSize(limit));
    }

    /** Deletes the flavor (one that does not exist is deleted already); its pools stay, in no flavor. */
    public Uni<Void> delete(String name) {
        return store.delete(catalogue, PoolService.checkName("Flavor", name));
    }

    private static void checkPools(List<String> pools) {
        if (pools == null) {
            throw Rejection.invalidBody("A flavor needs `pool_list`.");
        }
        if (pools.isEmpty()) {
            throw new Rejection(Rejection.Reason.UNABLE_TO_CREATE, "pool_list must name at least one pool.");
        }
        pools.forEach(pool -> PoolService.checkName("Pool", pool));
    }
}
