package io.pigeon.tenancy;

import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

/**
 * The SQL of the console sessions ended by sign-out, in the configured database so that every replica knows them
 * (migration V24): a copy of a session cookie made before sign-out is refused on every replica from then on. A session
 * is known by a key the console's sign-in derives from its ID token; what a sign-out is, is the console's.
 */
@ApplicationScoped
public class EndedSessionStore {

    // A second sign-out of the same session keeps the later horizon.
    private static final String END =
            """
            INSERT INTO console_ended_sessions (session_key, forget_at) VALUES ($1, $2)
            ON CONFLICT (session_key) DO UPDATE
            SET forget_at = GREATEST(console_ended_sessions.forget_at, EXCLUDED.forget_at)""";

    private static final String ENDED =
            "SELECT 1 FROM console_ended_sessions WHERE session_key = $1 AND forget_at > now()";

    private final Pool pool;

    public EndedSessionStore(Pool pool) {
        this.pool = pool;
    }

    /** Records the session {@code key} as ended, until {@code forgetAt}. */
    public Uni<Void> end(String key, Instant forgetAt) {
        return pool.preparedQuery(END)
                .execute(Tuple.of(key, OffsetDateTime.ofInstant(forgetAt, ZoneOffset.UTC)))
                .replaceWithVoid();
    }

    /** Whether the session {@code key} was ended by a sign-out. */
    public Uni<Boolean> ended(String key) {
        return pool.preparedQuery(ENDED).execute(Tuple.of(key)).map(rows -> rows.size() > 0);
    }
}
