package io.pigeon.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Every catalogued statement prepares on PostgreSQL as the client first sends it: without parameter types. A
 * statement whose parameter PostgreSQL deduces as two types at once is refused there; the client then prepares it a
 * second time, on every connection, and the server logs an error each time, while every answer looks right.
 */
@QuarkusTest
class StatementsPrepareTest {

    @Inject
    Pool pool;

    @Test
    void everyStatementPreparesWithoutParameterTypes() {
        List<String> refused = new ArrayList<>();
        int number = 0;
        for (Map.Entry<String, String> statement :
                StatementCatalogueTest.statementsOfTheCode().entrySet()) {
            if (statement.getKey().startsWith("PoolSchemas.")) {
                continue; // sent through JDBC, whose "?" placeholders PREPARE does not take
            }
            if (statement.getValue().startsWith("VACUUM")) {
                continue; // a utility command, sent as a simple query: nothing to prepare
            }
            String name = "catalogued_" + number++;
            try {
                // PREPARE and DEALLOCATE on one connection: a prepared statement lives on the connection that
                // made it, and the pool may hand the second query another one.
                pool.withConnection(connection -> connection
                                .query("PREPARE " + name + " AS " + statement.getValue())
                                .execute()
                                .chain(() ->
                                        connection.query("DEALLOCATE " + name).execute()))
                        .await()
                        .indefinitely();
            } catch (RuntimeException e) {
                refused.add(statement.getKey() + ": " + e.getMessage());
            }
        }
        assertEquals(List.of(), refused, "statements PostgreSQL refuses to prepare untyped");
    }
}
