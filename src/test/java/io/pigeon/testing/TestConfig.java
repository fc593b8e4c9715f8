package io.pigeon.testing;

import io.pigeon.config.PigeonConfig;
import io.quarkus.runtime.configuration.DurationConverter;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import java.time.Duration;
import java.util.Map;

/**
 * Pigeon's configuration without a running application: its defaults, with {@code values} over them. Every mapping
 * ({@link SettingsMappings}) is registered, as Quarkus does, so that a key of one feature is not an unknown key of
 * another whose prefix holds it ({@code pigeon} holds {@code pigeon.dispatch}).
 */
public final class TestConfig {

    private TestConfig() {}

    public static PigeonConfig pigeon(Map<String, String> values) {
        return settings(PigeonConfig.class, values);
    }

    /** The mapping {@code mapping} (e.g. {@code DispatchSettings.class}) with {@code values} over its defaults. */
    public static <T> T settings(Class<T> mapping, Map<String, String> values) {
        return config(values).getConfigMapping(mapping);
    }

    /** The configuration itself, with every mapping: building it validates nothing but the keys' types and names. */
    public static SmallRyeConfig config(Map<String, String> values) {
        return builder(values).build();
    }

    /** A builder with every mapping, the Duration converter Quarkus adds, and {@code values} as defaults. */
    public static SmallRyeConfigBuilder builder(Map<String, String> values) {
        SmallRyeConfigBuilder builder = new SmallRyeConfigBuilder()
                .withConverter(Duration.class, 100, new DurationConverter())
                .withDefaultValues(values);
        for (Class<?> mapping : SettingsMappings.all()) {
            builder.withMapping(mapping);
        }
        return builder;
    }
}
