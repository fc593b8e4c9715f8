package io.pigeon;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pigeon.testing.Api;
import io.pigeon.testing.Db;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/** The session settings Pigeon's own connections must carry. */
@QuarkusTest
class DatabaseSessionTest {

    @Inject
    Pool pool;

    @Test
    void jitIsOffAndConnectionsAreNamed() {
        Api.newProject(); // the shared database resource is started through Api's annotation
        assertEquals("off", Db.run(pool, "SELECT current_setting('jit')").iterator().next().getString(0));
        assertEquals("pigeon", Db.run(pool, "SELECT current_setting('application_name')").iterator().next().getString(0));
    }
}
