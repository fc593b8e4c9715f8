package io.pigeon.pool;

import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.enterprise.context.ApplicationScoped;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Supplier;

/**
 * The database each request runs on: the one that holds its queue (by the catalogue's placement), or, for a delivery
 * group of {@code /v3}, the one its address hashes to. A placement on a pool that has since been deleted (possible
 * only once its queues are gone) is forgotten and the queue placed again.
 */
@ApplicationScoped
public class QueueDatabases {

    private final Placements placements;
    private final PoolClients clients;
    private final Pool home;

    public QueueDatabases(Placements placements, PoolClients clients, Pool home) {
        this.placements = placements;
        this.clients = clients;
        this.home = home;
    }

    /** The database of a queue that a request reads or changes but does not create (a never placed one: home). */
    public Uni<Pool> of(String project, String queue) {
        return follow(() -> placements.find(project, queue));
    }

    /**
     * The database of a queue that a request may create: placed first if it never was, among the pools of
     * {@code flavor} (null: of no flavor).
     */
    public Uni<Pool> forCreating(String project, String queue, String flavor) {
        return follow(() -> placements.place(project, queue, flavor));
    }

    /**
     * The database of a queue that must live beside another's (a dead-letter queue beside its queue): placed there if
     * it never was; {@code false} when it lives elsewhere.
     */
    public Uni<Boolean> placeBeside(String project, String queue, String beside) {
        return placements.find(project, beside).chain(placement -> placements.placeAt(project, queue, placement));
    }

    private Uni<Pool> follow(Supplier<Uni<Placements.Placement>> placement) {
        return placement
                .get()
                .chain(this::client)
                .onFailure(PoolClients.UnknownPool.class)
                .recoverWithUni(gone -> {
                    placements.forget(((PoolClients.UnknownPool) gone).pool());
                    return placement.get().chain(this::client);
                });
    }

    private Uni<Pool> client(Placements.Placement placement) {
        return placement.home() ? Uni.createFrom().item(home) : clients.of(placement.pool());
    }

    /**
     * The database of a delivery group, by a stable hash of its key among every database that holds queues
     * (rendezvous hashing: adding or removing a pool moves only the groups that hash to it). With no pool registered,
     * the configured database.
     */
    public Uni<Pool> forKey(String key) {
        return clients.everyDatabase().map(databases -> chosen(databases, key).client());
    }

    static PoolClients.Named chosen(List<PoolClients.Named> databases, String key) {
        PoolClients.Named best = databases.get(0);
        long bestScore = Long.MIN_VALUE;
        for (PoolClients.Named database : databases) {
            long score = score((database.home() ? "" : database.name()) + '\u0000' + key);
            if (score > bestScore) {
                best = database;
                bestScore = score;
            }
        }
        return best;
    }

    /** A well-mixed 64-bit hash of the text (FNV-1a, then the SplitMix64 finaliser), the same on every replica. */
    static long score(String text) {
        long hash = 0xcbf29ce484222325L;
        for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
            hash = (hash ^ (b & 0xff)) * 0x100000001b3L;
        }
        hash = (hash ^ (hash >>> 30)) * 0xbf58476d1ce4e5b9L;
        hash = (hash ^ (hash >>> 27)) * 0x94d049bb133111ebL;
        return hash ^ (hash >>> 31);
    }
}
