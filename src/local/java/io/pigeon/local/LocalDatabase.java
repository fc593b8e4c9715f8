package io.pigeon.local;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Path;

/**
 * The embedded PostgreSQL of a local run. Its library starts servers for tests, with fsync,
 * synchronous_commit and full-page writes off (fast, and a crash may lose acknowledged messages or corrupt
 * the data directory). A local run keeps its data across restarts, so it runs as durably as any server:
 * every one of those is on.
 */
public final class LocalDatabase {

    private LocalDatabase() {}

    /** A durable server on {@code dataDir}, kept between runs. */
    public static EmbeddedPostgres.Builder durable(Path dataDir) {
        return EmbeddedPostgres.builder()
                .setDataDirectory(dataDir)
                .setCleanDataDirectory(false)
                .setServerConfig("fsync", "on")
                .setServerConfig("synchronous_commit", "on")
                .setServerConfig("full_page_writes", "on");
    }

    public static EmbeddedPostgres start(Path dataDir) throws IOException {
        return durable(dataDir).start();
    }
}
