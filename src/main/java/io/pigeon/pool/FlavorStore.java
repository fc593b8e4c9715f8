package io.pigeon.pool;

import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.RowSet;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/** The SQL of flavors: a flavor's pools are the pools whose flavor column names it. */
@ApplicationScoped
public class FlavorStore {

    // In one statement: nothing changes unless every named pool exists; then the flavor exists ($3: only if it did
    // already) and its pools are exactly those named (a pool named moves from the flavor it was in).
    private static final String REPLACE =
            """
            WITH wanted AS (SELECT DISTINCT unnest($2::text[]) AS pool),
            missing AS (SELECT w.pool FROM wanted w WHERE NOT EXISTS (SELECT 1 FROM pools p WHERE p.name = w.pool)),
            existing AS (SELECT name FROM flavors WHERE name = $1),
            allowed AS (SELECT NOT EXISTS (SELECT 1 FROM missing) AND (NOT $3 OR EXISTS (SELECT 1 FROM existing)) AS ok),
            created AS (
                INSERT INTO flavors (name) SELECT $1 FROM allowed WHERE ok
                ON CONFLICT (name) DO NOTHING RETURNING name),
            joined AS (
                UPDATE pools SET flavor = $1, updated_at = now()
                WHERE name IN (SELECT pool FROM wanted) AND (SELECT ok FROM allowed) RETURNING name),
            removed AS (
                UPDATE pools SET flavor = NULL, updated_at = now()
                WHERE flavor = $1 AND name NOT IN (SELECT pool FROM wanted) AND (SELECT ok FROM allowed) RETURNING name)
            SELECT ARRAY(SELECT pool FROM missing ORDER BY pool) AS missing, EXISTS (SELECT 1 FROM existing) AS existed""";

    private static final String WITH_POOLS =
            """
            SELECT f.name, ARRAY(SELECT p.name FROM pools p WHERE p.flavor = f.name ORDER BY p.name) AS pools
            FROM flavors f""";

    private static final String GET = WITH_POOLS + " WHERE f.name = $1";

    private static final String LIST = WITH_POOLS + " WHERE f.name > $1 ORDER BY f.name LIMIT $2";

    private static final String DELETE =
            """
            WITH released AS (UPDATE pools SET flavor = NULL, updated_at = now() WHERE flavor = $1 RETURNING name)
            DELETE FROM flavors WHERE name = $1""";

    /** What a replace did: the pools it named that do not exist (then it did nothing), and whether the flavor existed. */
    public record Replaced(List<String> missingPools, boolean existed) {}

    /** Makes {@code pools} the flavor's pools, creating it unless {@code mustExist}. */
    public Uni<Replaced> replace(SqlClient db, String name, List<String> pools, boolean mustExist) {
        return db.preparedQuery(REPLACE)
                .execute(Tuple.of(name)
                        .addArrayOfString(pools.toArray(String[]::new))
                        .addBoolean(mustExist))
                .map(rows -> {
                    Row row = rows.iterator().next();
                    return new Replaced(Arrays.asList(row.getArrayOfStrings("missing")), row.getBoolean("existed"));
                });
    }

    public Uni<Optional<Flavor>> get(SqlClient db, String name) {
        return db.preparedQuery(GET).execute(Tuple.of(name)).map(rows -> toFlavors(rows).stream()
                .findFirst());
    }

    public Uni<List<Flavor>> list(SqlClient db, String after, int limit) {
        return db.preparedQuery(LIST).execute(Tuple.of(after, limit)).map(FlavorStore::toFlavors);
    }

    /** Deletes the flavor; its pools stay, in no flavor. */
    public Uni<Void> delete(SqlClient db, String name) {
        return db.preparedQuery(DELETE).execute(Tuple.of(name)).replaceWithVoid();
    }

    private static List<Flavor> toFlavors(RowSet<Row> rows) {
        List<Flavor> flavors = new ArrayList<>(rows.size());
        for (Row row : rows) {
            flavors.add(new Flavor(row.getString("name"), Arrays.asList(row.getArrayOfStrings("pools"))));
        }
        return flavors;
    }
}
