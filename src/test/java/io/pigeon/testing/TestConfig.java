package io.pigeon.testing;

import io.pigeon.config.PigeonConfig;
import io.quarkus.runtime.configuration.DurationConverter;
import io.smallrye.config.SmallRyeConfigBuilder;
import java.time.Duration;
import java.util.Map;

/** Pigeon's configuration without a running application: its defaults, with {@code values} over them. */
public final class TestConfig {

    private TestConfig() {}

    public static PigeonConfig pigeon(Map<String, String> values) {
        return new SmallRyeConfigBuilder()
                .withMapping(PigeonConfig.class)
                .withConverter(Duration.class, 100, new DurationConverter())
                .withDefaultValues(values)
                .build()
                .getConfigMapping(PigeonConfig.class);
    }
}
