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

/** The SQL of the pool catalogue (the pools, flavors and placements tables of the configured database). */
@ApplicationScoped
public class PoolStore {

    private static final String COLUMNS = "name, uri, weight, flavor, options::text AS options";

    // A pool registered again under its name is replaced whole, as in Zaqar.
    private static final String UPSERT =
            """
            INSERT INTO pools (name, uri, weight, flavor, options) VALUES ($1, $2, $3, $4, $5::text::json)
            ON CONFLICT (name) DO UPDATE
            SET uri = EXCLUDED.uri, weight = EXCLUDED.weight, flavor = EXCLUDED.flavor, options = EXCLUDED.options,
                updated_at = now()""";

    private static final String OTHER_USING = "SELECT name FROM pools WHERE uri = $1 AND name <> $2";

    private static final String GET = "SELECT " + COLUMNS + " FROM pools WHERE name = $1";

    private static final String LIST = "SELECT " + COLUMNS + " FROM pools WHERE name > $1 ORDER BY name LIMIT $2";
    private static final String NAMES = "SELECT name FROM pools ORDER BY name";
    private static final String STORED_URI = "SELECT uri FROM pools WHERE name = $1";

    // Absent fields ($2..$5 null) stay; an empty flavor takes the pool out of its flavor.
    private static final String UPDATE =
            """
            UPDATE pools
            SET uri = COALESCE($2, uri), weight = COALESCE($3, weight),
                flavor = CASE WHEN $4::text IS NULL THEN flavor WHEN $4::text = '' THEN NULL ELSE $4::text END,
                options = COALESCE($5::text::json, options), updated_at = now()
            WHERE name = $1
            RETURNING %s"""
                    .formatted(COLUMNS);

    // The pool is locked first, so that the reason to refuse is that of the pool the statement deletes: a pool is kept
    // while it is the last pool of an existing flavor. (Whether it holds queues is asked of its own server first.)
    private static final String DELETE =
            """
            WITH target AS (SELECT name, flavor FROM pools WHERE name = $1 FOR UPDATE),
            refusal AS (
                SELECT CASE WHEN t.flavor IS NOT NULL AND EXISTS (SELECT 1 FROM flavors f WHERE f.name = t.flavor)
                                 AND NOT EXISTS (SELECT 1 FROM pools p WHERE p.flavor = t.flavor AND p.name <> t.name)
                            THEN 'flavor' END AS reason, t.flavor
                FROM target t),
            deleted AS (DELETE FROM pools p USING refusal r WHERE p.name = $1 AND r.reason IS NULL RETURNING p.name)
            SELECT r.reason, r.flavor FROM refusal r""";

    /** Why a delete was refused: the pool is the last pool of {@code flavor}. */
    public record Refusal(String reason, String flavor) {}

    public Uni<Void> upsert(SqlClient db, String name, PoolUri uri, long weight, String flavor, String optionsJson) {
        return db.preparedQuery(UPSERT)
                .execute(Tuple.of(name, uri.text(), weight, flavor, optionsJson))
                .replaceWithVoid();
    }

    /** The pool using {@code uri} under another name than {@code name}, if any. */
    public Uni<Optional<String>> otherUsing(SqlClient db, String name, PoolUri uri) {
        return db.preparedQuery(OTHER_USING)
                .execute(Tuple.of(uri.text(), name))
                .map(rows -> rows.size() == 0
                        ? Optional.empty()
                        : Optional.of(rows.iterator().next().getString(0)));
    }

    public Uni<Optional<StoragePool>> get(SqlClient db, String name) {
        return db.preparedQuery(GET).execute(Tuple.of(name)).map(rows -> toPools(rows).stream()
                .findFirst());
    }

    /** Up to {@code limit} pools whose names sort after {@code after}, in name order. */
    public Uni<List<StoragePool>> list(SqlClient db, String after, int limit) {
        return db.preparedQuery(LIST).execute(Tuple.of(after, limit)).map(PoolStore::toPools);
    }

    /** The name of every registered pool, in name order. */
    public Uni<List<String>> names(SqlClient db) {
        return db.query(NAMES).execute().map(rows -> {
            List<String> names = new ArrayList<>(rows.size());
            rows.forEach(row -> names.add(row.getString("name")));
            return names;
        });
    }

    /** The pool's uri as stored (not read: a legacy row may not parse), or empty when there is none of that name. */
    public Uni<Optional<String>> storedUri(SqlClient db, String name) {
        return db.preparedQuery(STORED_URI)
                .execute(Tuple.of(name))
                .map(rows -> rows.size() == 0
                        ? Optional.empty()
                        : Optional.of(rows.iterator().next().getString("uri")));
    }

    /** The pool as patched, or empty when there is none of that name. */
    public Uni<Optional<StoragePool>> update(
            SqlClient db, String name, String uri, Long weight, String flavor, String optionsJson) {
        return db.preparedQuery(UPDATE)
                .execute(Tuple.from(Arrays.asList(name, uri, weight, flavor, optionsJson)))
                .map(rows -> toPools(rows).stream().findFirst());
    }

    /** Deletes the pool unless it is in use; a pool that does not exist is deleted already (empty). */
    public Uni<Optional<Refusal>> delete(SqlClient db, String name) {
        return db.preparedQuery(DELETE).execute(Tuple.of(name)).map(rows -> {
            if (rows.size() == 0) {
                return Optional.empty();
            }
            Row row = rows.iterator().next();
            return row.getString("reason") == null
                    ? Optional.empty()
                    : Optional.of(new Refusal(row.getString("reason"), row.getString("flavor")));
        });
    }

    private static List<StoragePool> toPools(RowSet<Row> rows) {
        List<StoragePool> pools = new ArrayList<>(rows.size());
        for (Row row : rows) {
            pools.add(new StoragePool(
                    row.getString("name"),
                    PoolUri.stored(row.getString("uri")),
                    row.getLong("weight"),
                    row.getString("flavor"),
                    row.getString("options")));
        }
        return pools;
    }
}
