package io.pigeon.local;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/** The database of {@code ./mvnw -Plocal} acknowledges a commit only once it is on disk. */
class LocalDatabaseTest {

    @Test
    void theLocalRunsDatabaseIsDurable() throws Exception {
        Path dataDir = Files.createTempDirectory("pigeon-local-db");
        try (EmbeddedPostgres postgres = LocalDatabase.start(dataDir);
                Connection connection = postgres.getPostgresDatabase().getConnection();
                Statement statement = connection.createStatement()) {
            for (String setting : new String[] {"fsync", "synchronous_commit", "full_page_writes"}) {
                try (ResultSet value = statement.executeQuery("SHOW " + setting)) {
                    value.next();
                    assertEquals("on", value.getString(1), setting);
                }
            }
        }
    }
}
