package io.pigeon.api;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** Fixed JSON documents served as they are (home and versions documents), read once from the classpath. */
public final class StaticDocuments {

    private StaticDocuments() {
    }

    public static String load(String resource) {
        try (InputStream in = StaticDocuments.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("Missing resource " + resource);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
