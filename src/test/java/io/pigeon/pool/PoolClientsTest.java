package io.pigeon.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pigeon.testing.Api;
import io.pigeon.testing.Db;
import io.quarkus.test.junit.QuarkusTest;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.SqlClient;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The connections to registered pools: made on first use from the catalogue (also for a pool another replica
 * registered), one client however many first uses race, and dropped once the pool is deleted or moved.
 */
@QuarkusTest
class PoolClientsTest {

    @Inject
    Pool pool;

    @Inject
    PoolClients clients;

    @Inject
    PoolService pools;

    private final String suffix = UUID.randomUUID().toString().substring(0, 8);

    private String databaseOf(SqlClient client) {
        return client.query("SELECT current_database()").execute().await().indefinitely().iterator().next().getString(0);
    }

    private static String databaseIn(String uri) {
        return uri.substring(uri.lastIndexOf('/') + 1);
    }

    @Test
    void aPoolIsReachedWhereTheCatalogueSaysUntilItMovesOrGoes() {
        Api.newProject(); // the shared database must be up
        String first = Db.newDatabase(pool);
        String second = Db.newDatabase(pool);
        String name = "clients-" + suffix;
        pools.register(name, new PoolSpec(first, 10L, null, null)).await().indefinitely();

        // Sixteen first uses at once share one client.
        List<Uni<io.vertx.mutiny.sqlclient.Pool>> racing = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            racing.add(clients.of(name));
        }
        List<io.vertx.mutiny.sqlclient.Pool> made = Uni.join().all(racing).andFailFast().await().indefinitely();
        made.forEach(client -> assertSame(made.get(0), client));
        assertEquals(databaseIn(first), databaseOf(made.get(0)));

        pools.update(name, new PoolSpec(second, null, null, null)).await().indefinitely();
        clients.refresh().await().indefinitely();
        assertEquals(databaseIn(second), databaseOf(clients.of(name).await().indefinitely()));

        pools.delete(name).await().indefinitely();
        clients.refresh().await().indefinitely();
        assertThrows(PoolClients.UnknownPool.class, () -> clients.of(name).await().indefinitely());
    }

    @Test
    void aPoolRegisteredElsewhereIsFoundWithoutARestart() {
        Api.newProject();
        String uri = Db.newDatabase(pool);
        String name = "elsewhere-" + suffix;
        // As another replica's registration leaves it: a catalogue row this replica has never seen.
        Db.run(pool, "INSERT INTO pools (name, uri, weight) VALUES ($1, $2, 5)", name, uri);
        try {
            assertEquals(databaseIn(uri), databaseOf(clients.of(name).await().indefinitely()));
        } finally {
            Db.run(pool, "DELETE FROM pools WHERE name = $1", name);
            clients.refresh().await().indefinitely();
        }
        assertThrows(PoolClients.UnknownPool.class, () -> clients.of("never-" + suffix).await().indefinitely());
    }

    @Test
    void anyAcceptedSpellingOfTheSchemeConnects() {
        Api.newProject();
        String uri = Db.newDatabase(pool);
        String name = "spelled-" + suffix;
        pools.register(name, new PoolSpec(uri.replaceFirst("^postgresql://", "PostgreS://"), 1L, null, null))
                .await().indefinitely();
        try {
            assertEquals(databaseIn(uri), databaseOf(clients.of(name).await().indefinitely()));
        } finally {
            pools.delete(name).await().indefinitely();
        }
    }
}
