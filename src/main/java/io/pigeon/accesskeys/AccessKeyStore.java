package io.pigeon.accesskeys;

import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The SQL of access keys (migration V28), on the configured database: make one within the project's bound, list a
 * project's, revoke one, and find a live key by its id for the signature check. Revoked keys are kept a day; the next
 * key made for the project deletes those older, in the same statement.
 */
@ApplicationScoped
public class AccessKeyStore {

    // The count reads the rows as they were before the purge (one snapshot), so it leaves out what the purge deletes.
    // Two keys made at once for one project may pass the bound by one each: the bound holds to within the requests in
    // flight, as the project's own requests are bounded by its connections.
    private static final String CREATE =
            """
            WITH purged AS (
                DELETE FROM access_keys
                WHERE project = $1 AND revoked_at < now() - interval '1 day'),
            held AS (
                SELECT count(*) FILTER (WHERE revoked_at IS NULL) AS live, count(*) AS kept
                FROM access_keys
                WHERE project = $1 AND (revoked_at IS NULL OR revoked_at >= now() - interval '1 day'))
            INSERT INTO access_keys (access_key_id, project, derived_from)
            SELECT $2, $1, $3 FROM held WHERE live < $4 AND kept < 2 * $4
            RETURNING created_at""";

    private static final String LIST =
            """
            SELECT access_key_id, created_at, revoked_at
            FROM access_keys
            WHERE project = $1 AND (revoked_at IS NULL OR revoked_at >= now() - interval '1 day')
            ORDER BY created_at, access_key_id""";

    private static final String REVOKE =
            """
            UPDATE access_keys SET revoked_at = COALESCE(revoked_at, now())
            WHERE project = $1 AND access_key_id = $2
            RETURNING revoked_at""";

    private static final String FIND =
            "SELECT project, derived_from FROM access_keys WHERE access_key_id = $1 AND revoked_at IS NULL";

    private final Pool pool;

    public AccessKeyStore(Pool pool) {
        this.pool = pool;
    }

    /** A live key of a project, as the signature check needs it. */
    public record LiveKey(String project, String derivedFrom) {}

    /**
     * Records key {@code accessKeyId} of {@code project}, derived from {@code derivedFrom}; its creation time, or
     * empty when the project holds {@code maxPerProject} live keys (or as many again revoked within a day).
     */
    public Uni<Optional<Instant>> create(String project, String accessKeyId, String derivedFrom, int maxPerProject) {
        return pool.preparedQuery(CREATE)
                .execute(Tuple.of(project, accessKeyId, derivedFrom, maxPerProject))
                .map(rows -> rows.size() == 0
                        ? Optional.<Instant>empty()
                        : Optional.of(rows.iterator()
                                .next()
                                .getOffsetDateTime("created_at")
                                .toInstant()));
    }

    /** The project's live keys and those revoked within a day, oldest first. */
    public Uni<List<AccessKey>> list(String project) {
        return pool.preparedQuery(LIST).execute(Tuple.of(project)).map(rows -> {
            List<AccessKey> keys = new ArrayList<>(rows.size());
            for (Row row : rows) {
                keys.add(new AccessKey(
                        row.getString("access_key_id"),
                        row.getOffsetDateTime("created_at").toInstant(),
                        instant(row.getOffsetDateTime("revoked_at"))));
            }
            return keys;
        });
    }

    /** Revokes the key {@code accessKeyId} of {@code project}: false when the project has no such key. */
    public Uni<Boolean> revoke(String project, String accessKeyId) {
        return pool.preparedQuery(REVOKE)
                .execute(Tuple.of(project, accessKeyId))
                .map(rows -> rows.size() > 0);
    }

    /** The live key {@code accessKeyId}, of whatever project; empty when unknown or revoked. */
    public Uni<Optional<LiveKey>> find(String accessKeyId) {
        return pool.preparedQuery(FIND).execute(Tuple.of(accessKeyId)).map(rows -> {
            if (rows.size() == 0) {
                return Optional.empty();
            }
            Row row = rows.iterator().next();
            return Optional.of(new LiveKey(row.getString("project"), row.getString("derived_from")));
        });
    }

    private static Instant instant(OffsetDateTime time) {
        return time == null ? null : time.toInstant();
    }
}
