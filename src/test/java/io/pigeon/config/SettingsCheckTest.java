package io.pigeon.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.api.ws.ServerSettingsCheck;
import io.pigeon.api.ws.WebsocketSettings;
import io.pigeon.testing.SettingsMappings;
import io.pigeon.testing.TestConfig;
import io.smallrye.config.ConfigValidationException;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import io.smallrye.config.validator.BeanValidationConfigValidator;
import jakarta.validation.Validation;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.config.Config;
import org.hibernate.validator.messageinterpolation.ParameterMessageInterpolator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The start-time check of the bounds a single constraint cannot say, each stated by the mapping that owns the setting:
 * the defaults pass, and each bad value gives one line naming its setting ({@code BadSettingsIT} starts the packaged application with such values).
 */
class SettingsCheckTest {

    @Test
    void theDefaultsAreWithinEveryBound() {
        assertEquals(List.of(), problems(Map.of()));
    }

    /** The problems of every mapping (each feature's own) built from {@code values}. */
    private static List<String> problems(Map<String, String> values) {
        SmallRyeConfig config = TestConfig.config(values);
        List<String> problems = new ArrayList<>();
        for (Class<?> mapping : SettingsMappings.all()) {
            if (config.getConfigMapping(mapping) instanceof CheckedSettings checked) {
                problems.addAll(checked.problems());
            }
        }
        return problems;
    }

    @Test
    void everyMappingWithOwnBoundsIsValidatedAtStart() {
        for (Class<?> mapping : SettingsMappings.all()) {
            if (CheckedSettings.class.isAssignableFrom(mapping)) {
                assertTrue(mapping.isAnnotationPresent(ValidSettings.class), mapping + " lacks @ValidSettings");
            }
        }
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "pigeon.default-message-ttl | 1209601 | pigeon.default-message-ttl (1209601) must be at most",
                "pigeon.default-claim-grace | 43201 | pigeon.default-claim-grace",
                "pigeon.idempotency.default-window | 3601 | pigeon.idempotency.default-window",
                "pigeon.redrive.default-rate | 1001 | pigeon.redrive.default-rate",
                "pigeon.redrive.max-running-per-project-per-replica | 17 | max-running-per-project-per-replica",
                "pigeon.claim-wait.renewal | 30s | pigeon.claim-wait.renewal (PT30S) must be below",
                "pigeon.socket-subscriptions.renewal | 31s | pigeon.socket-subscriptions.renewal",
                "pigeon.dispatch.retry-initial | 6m | pigeon.dispatch.retry-initial",
                "pigeon.dispatch.ontime-horizon | 60d | pigeon.dispatch.ontime-horizon",
                "pigeon.quotas.check-interval | off | pigeon.quotas.check-interval is off",
                "pigeon.quotas.check-interval | 0s | pigeon.quotas.check-interval is 0s",
                "pigeon.sweeper.interval | soon | pigeon.sweeper.interval is soon",
                "pigeon.signed-url.secret-key | short | pigeon.signed-url.secret-key is 5 bytes",
                "pigeon.signed-url.keys.k:1 | a-key-that-is-long-enough-for-hmac-sha256 | a key id is 1 to 32",
                "pigeon.signed-url.signing-key | k9 | pigeon.signed-url.signing-key names no configured key",
                "pigeon.encryption.keys.k1 | AAAA | pigeon.encryption.keys.k1 must be 32 bytes",
                "pigeon.encryption.current-key | k9 | pigeon.encryption.current-key names k9",
                "pigeon.dispatch.allowed-ports | 0 | pigeon.dispatch.allowed-ports",
                "pigeon.dispatch.allowed-ports | 9000-8000 | pigeon.dispatch.allowed-ports",
                "pigeon.dispatch.allowed-targets | ::1/129 | pigeon.dispatch.allowed-targets",
                "pigeon.notification.mail.public-url | ftp://queues.example.com | pigeon.notification.mail.public-url",
                "pigeon.notification.mail.confirmation-url | /confirm | pigeon.notification.mail.confirmation-url",
                "pigeon.console.session-secret | 31-characters-is-one-too-short | pigeon.console.session-secret",
                "pigeon.http.allowed-hosts | *.com | pigeon.http.allowed-hosts: '*.com' covers every name",
                "pigeon.http.allowed-hosts | *.localhost | at least two labels after the star",
            })
    void aValueOutOfItsBoundIsOneLineNamingTheSetting(String setting, String value, String expected) {
        Map<String, String> values = setting.equals("pigeon.signed-url.signing-key")
                ? Map.of(setting, value, "pigeon.signed-url.secret-key", "a-key-that-is-long-enough-for-hmac-sha256")
                : Map.of(setting, value);
        List<String> problems = problems(values);
        assertEquals(1, problems.size(), problems.toString());
        assertTrue(problems.get(0).contains(expected), problems.get(0));
    }

    /** The Quarkus settings Pigeon's bounds rest on: the shipped values pass, each bad one is a line naming it. */
    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "quarkus.http.idle-timeout | 0s | quarkus.http.idle-timeout is 0s",
                "quarkus.http.idle-timeout | -5s | quarkus.http.idle-timeout is -5s",
                "quarkus.http.limits.max-connections | -3 | quarkus.http.limits.max-connections is -3",
                "pigeon.websocket.max-sockets | 100000 | pigeon.websocket.max-sockets + pigeon.websocket.max-anon",
                "pigeon.websocket.max-anonymous-sockets | 1096 | must be below quarkus.http.limits.max-connections",
            })
    void aServerSettingOutOfItsBoundIsOneLineNamingIt(String setting, String value, String expected) {
        Map<String, String> values = new HashMap<>(SHIPPED_SERVER);
        values.put(setting, value);
        List<String> problems =
                ServerSettingsCheck.problems(config(values), TestConfig.settings(WebsocketSettings.class, values));
        assertEquals(1, problems.size(), problems.toString());
        assertTrue(problems.get(0).contains(expected), problems.get(0));
        assertEquals(
                List.of(),
                ServerSettingsCheck.problems(
                        config(SHIPPED_SERVER), TestConfig.settings(WebsocketSettings.class, SHIPPED_SERVER)));
    }

    /** The shipped Quarkus values these checks read (application.properties). */
    private static final Map<String, String> SHIPPED_SERVER =
            Map.of("quarkus.http.idle-timeout", "120S", "quarkus.http.limits.max-connections", "4096");

    private static Config config(Map<String, String> values) {
        return new SmallRyeConfigBuilder().withDefaultValues(values).build();
    }

    /**
     * A violation names its documented key, not a Java name: a constraint on a setting of a mapping with a two-word
     * prefix, on one of {@link PigeonConfig}, and a bound a feature's own mapping checks ({@link ValidSettings}).
     */
    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "pigeon.claim-wait.max | -1",
                "pigeon.queue-metrics.sample-period | 0s",
                "pigeon.max-claim-ttl | 59",
                "pigeon.dispatch.retry-initial | 10m",
                "pigeon.console.session-secret | too-short"
            })
    void aConstraintViolationNamesTheDocumentedKey(String setting, String value) {
        ConfigValidationException refused =
                assertThrows(ConfigValidationException.class, () -> TestConfig.builder(Map.of(setting, value))
                        .withValidator((BeanValidationConfigValidator) () -> Validation.byDefaultProvider()
                                .configure()
                                .messageInterpolator(new ParameterMessageInterpolator())
                                .buildValidatorFactory()
                                .getValidator())
                        .build());
        assertTrue(refused.getMessage().contains(setting), refused.getMessage());
    }
}
