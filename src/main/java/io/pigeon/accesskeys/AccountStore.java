package io.pigeon.accesskeys;

import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.RowSet;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Optional;

/** The SQL of the SQS accounts (migration V27), on the configured database, which every replica reads. */
@ApplicationScoped
public class AccountStore {

    // One round trip: the new row when it was taken, else the project's existing one. Both parts read one snapshot, so
    // neither sees a row a concurrent statement commits meanwhile: an empty answer (the account id taken by another
    // project, or the project's row committed by a concurrent first request) is tried again by the caller.
    private static final String TAKE =
            """
            WITH taken AS (
                INSERT INTO sqs_accounts (project, account_id) VALUES ($1, $2)
                ON CONFLICT DO NOTHING
                RETURNING account_id)
            SELECT account_id FROM taken
            UNION ALL
            SELECT account_id FROM sqs_accounts WHERE project = $1""";

    private static final String ACCOUNT_OF = "SELECT account_id FROM sqs_accounts WHERE project = $1";

    private static final String PROJECT_OF = "SELECT project FROM sqs_accounts WHERE account_id = $1";

    private final Pool pool;

    public AccountStore(Pool pool) {
        this.pool = pool;
    }

    /** The project's account: {@code candidate} if the project had none and no other project holds it; empty to retry. */
    public Uni<Optional<String>> take(String project, String candidate) {
        return pool.preparedQuery(TAKE).execute(Tuple.of(project, candidate)).map(AccountStore::first);
    }

    /** The project's account, if it has one. */
    public Uni<Optional<String>> accountOf(String project) {
        return pool.preparedQuery(ACCOUNT_OF).execute(Tuple.of(project)).map(AccountStore::first);
    }

    /** The project an account id names, if any. */
    public Uni<Optional<String>> projectOf(String accountId) {
        return pool.preparedQuery(PROJECT_OF).execute(Tuple.of(accountId)).map(AccountStore::first);
    }

    private static Optional<String> first(RowSet<Row> rows) {
        return rows.size() == 0
                ? Optional.empty()
                : Optional.of(rows.iterator().next().getString(0));
    }
}
