package io.pigeon.pool;

import io.pigeon.rules.Rejection;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.RowSet;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Where each queue lives: on a registered pool, or on the configured database ("home", which holds every queue made
 * before pools existed). A queue is placed once, in the catalogue, by the first write that may create it, so that
 * every replica agrees; the placement is kept, even after the queue is deleted, so that what a replica remembers is
 * never stale (a placement ends only with its pool, which can be deleted only while it holds no queues).
 */
@ApplicationScoped
public class Placements {

    /** Where a queue lives: {@code pool} is a registered pool's name, or null for the configured database. */
    public record Placement(String pool) {
        public static final Placement HOME = new Placement(null);

        public boolean home() {
            return pool == null;
        }
    }

    /** Replicas remember at most this many placements; forgetting costs one catalogue read on the next request. */
    private static final int MAX_REMEMBERED = 100_000;

    private static final String HOME_KEY = "";

    // One statement: the queue's placement if it has one; else home if the queue exists there (made before pools);
    // else a pool drawn in proportion to the weights of those that take new queues (of the flavor $3, or of no
    // flavor when $3 is null); else home, when no flavor was asked for. The draw happens once per statement.
    static final String PLACE =
            """
            WITH existing AS (SELECT pool FROM placements WHERE project = $1 AND queue = $2),
            at_home AS (SELECT 1 FROM queues WHERE project = $1 AND name = $2),
            candidates AS (
                SELECT name, sum(weight) OVER (ORDER BY name) AS upto
                FROM pools WHERE weight > 0 AND flavor IS NOT DISTINCT FROM $3),
            draw AS (SELECT floor(random() * (SELECT max(upto) FROM candidates)) AS at),
            chosen AS (
                SELECT name FROM candidates WHERE NOT EXISTS (SELECT 1 FROM at_home)
                  AND upto > (SELECT at FROM draw) ORDER BY upto LIMIT 1),
            inserted AS (
                INSERT INTO placements (project, queue, pool)
                SELECT $1, $2, (SELECT name FROM chosen)
                WHERE NOT EXISTS (SELECT 1 FROM existing)
                  AND (EXISTS (SELECT 1 FROM chosen) OR EXISTS (SELECT 1 FROM at_home) OR $3::text IS NULL)
                ON CONFLICT (project, queue) DO NOTHING
                RETURNING pool)
            SELECT true AS placed, pool FROM existing
            UNION ALL
            SELECT true, pool FROM inserted
            UNION ALL
            SELECT false, NULL WHERE NOT EXISTS (SELECT 1 FROM existing) AND NOT EXISTS (SELECT 1 FROM inserted)""";

    private static final String FIND = "SELECT pool FROM placements WHERE project = $1 AND queue = $2";

    private static final String FLAVOR_EXISTS = "SELECT 1 FROM flavors WHERE name = $1";

    private static final String PLACE_AT =
            """
            WITH inserted AS (
                INSERT INTO placements (project, queue, pool) VALUES ($1, $2, $3)
                ON CONFLICT (project, queue) DO NOTHING RETURNING pool)
            SELECT pool FROM inserted
            UNION ALL
            SELECT pool FROM placements WHERE project = $1 AND queue = $2 AND NOT EXISTS (SELECT 1 FROM inserted)""";

    private final Map<String, String> remembered = new ConcurrentHashMap<>();
    private final Pool catalogue;

    public Placements(Pool catalogue) {
        this.catalogue = catalogue;
    }

    private static String key(String project, String queue) {
        return project + '\u0000' + queue;
    }

    /**
     * Where a queue lives, for a request that does not create it: a queue never placed is looked for at home (and this
     * is not remembered, so that a later placement elsewhere is seen).
     */
    public Uni<Placement> find(String project, String queue) {
        Placement known = remembered(project, queue);
        if (known != null) {
            return Uni.createFrom().item(known);
        }
        return catalogue.preparedQuery(FIND).execute(Tuple.of(project, queue)).map(rows -> {
            if (rows.size() == 0) {
                return Placement.HOME;
            }
            return remember(project, queue, rows.iterator().next().getString("pool"));
        });
    }

    /**
     * Where a queue lives, placing it first if it never was (a request that may create it): among the pools of
     * {@code flavor} that take new queues, by weight; without a flavor among the pools of no flavor, or at home when
     * none takes new queues. An unknown flavor is the client's error (400), a flavor without a pool that takes new
     * queues the operator's (503).
     */
    public Uni<Placement> place(String project, String queue, String flavor) {
        Placement known = remembered(project, queue);
        if (known != null) {
            return Uni.createFrom().item(known);
        }
        Uni<Void> flavorExists = flavor == null
                ? Uni.createFrom().voidItem()
                : catalogue
                        .preparedQuery(FLAVOR_EXISTS)
                        .execute(Tuple.of(flavor))
                        .map(rows -> {
                            if (rows.size() == 0) {
                                throw Rejection.invalidRequest("Flavor " + flavor + " does not exist");
                            }
                            return null;
                        });
        return flavorExists
                .chain(() -> attempt(project, queue, flavor))
                // A concurrent placement won (ON CONFLICT): it is there to read now.
                .chain(placed -> placed.isPresent() ? Uni.createFrom().item(placed) : attempt(project, queue, flavor))
                .map(placed -> placed.orElseThrow(() -> new Rejection(
                        Rejection.Reason.UNAVAILABLE,
                        "No pool of flavor " + flavor + " takes new queues. Please try again later.")));
    }

    private Uni<Optional<Placement>> attempt(String project, String queue, String flavor) {
        return catalogue
                .preparedQuery(PLACE)
                .execute(Tuple.from(Arrays.asList(project, queue, flavor)))
                .map(rows -> placed(project, queue, rows));
    }

    private Optional<Placement> placed(String project, String queue, RowSet<Row> rows) {
        Row row = rows.iterator().next();
        return row.getBoolean("placed")
                ? Optional.of(remember(project, queue, row.getString("pool")))
                : Optional.empty();
    }

    /** What this replica remembers of the queue's placement, or null. */
    private Placement remembered(String project, String queue) {
        String known = remembered.get(key(project, queue));
        return known == null ? null : placement(known.equals(HOME_KEY) ? null : known);
    }

    private static Placement placement(String pool) {
        return pool == null ? Placement.HOME : new Placement(pool);
    }

    private Placement remember(String project, String queue, String pool) {
        if (remembered.size() >= MAX_REMEMBERED) {
            remembered.clear();
        }
        remembered.put(key(project, queue), pool == null ? HOME_KEY : pool);
        return placement(pool);
    }

    /**
     * Places the queue where {@code placement} says if it never was placed: true when it lives there (now or
     * already), false when it lives elsewhere.
     */
    public Uni<Boolean> placeAt(String project, String queue, Placement placement) {
        return catalogue
                .preparedQuery(PLACE_AT)
                .execute(Tuple.from(Arrays.asList(project, queue, placement.pool())))
                .map(rows -> {
                    String pool = rows.iterator().next().getString("pool");
                    remember(project, queue, pool);
                    return Objects.equals(pool, placement.pool());
                });
    }

    /** Forgets the placements on {@code pool}: it is gone, and its queue names may be placed again. */
    public void forget(String pool) {
        remembered.values().removeIf(pool::equals);
    }
}
