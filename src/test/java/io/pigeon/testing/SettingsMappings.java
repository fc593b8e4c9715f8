package io.pigeon.testing;

import io.pigeon.config.PigeonConfig;
import io.smallrye.config.ConfigMapping;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * Every {@code @ConfigMapping} interface under io.pigeon, found by reading the compiled classes rather than listed by
 * hand: each feature owns its mapping, and a mapping added tomorrow is checked (documented, built in tests) the day it
 * appears.
 */
public final class SettingsMappings {

    private static final List<Class<?>> ALL = scan();

    private SettingsMappings() {}

    /** The mappings, by prefix ({@code pigeon} first). */
    public static List<Class<?>> all() {
        return ALL;
    }

    /** The prefix of {@code mapping} ({@code pigeon.dispatch}). */
    public static String prefix(Class<?> mapping) {
        return mapping.getAnnotation(ConfigMapping.class).prefix();
    }

    private static List<Class<?>> scan() {
        Path classes;
        try {
            classes = Path.of(PigeonConfig.class
                    .getProtectionDomain()
                    .getCodeSource()
                    .getLocation()
                    .toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
        try (Stream<Path> files = Files.walk(classes.resolve("io/pigeon"))) {
            return files.map(file -> classes.relativize(file).toString())
                    .filter(name -> name.endsWith(".class") && !name.contains("$"))
                    .map(name -> name.substring(0, name.length() - ".class".length())
                            .replace('/', '.')
                            .replace('\\', '.'))
                    .map(SettingsMappings::load)
                    .filter(type -> type.isInterface() && type.isAnnotationPresent(ConfigMapping.class))
                    .sorted(Comparator.comparing(SettingsMappings::prefix))
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Class<?> load(String name) {
        try {
            return Class.forName(name, false, SettingsMappings.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(e);
        }
    }
}
