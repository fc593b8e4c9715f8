package io.pigeon.reliability;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.testing.Slow;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A setting out of its bound stops the start (issue 39, item 9): the packaged Pigeon is started once per bad value and
 * must exit non-zero, before it listens and before it reaches the database (it is given one nobody listens on), with a
 * line naming the setting. Before this check, a short signing key let Pigeon start, pass its health checks and answer
 * 500 to every share. One case per kind of bound: a number too small or too large, not a number, a zero, negative or
 * unreadable duration, an interval, each key rule, an enum, a relation between two settings, a list entry, a URL.
 *
 * <p>Each start is a real start of the packaged application, so 36 of them are most of this class's time. Two run at
 * once (failsafe's JUnit parallelism is 2; other *IT classes run one at a time), and each JVM runs with its first JIT
 * tier only: a start that ends within seconds at its settings check gains nothing from the optimising compiler, whose
 * threads would take the 2 cores from the start itself. The code that runs (Quarkus' start, the settings checks) is the
 * same; only how the JVM compiles it differs.
 */
@Slow
@Execution(ExecutionMode.CONCURRENT)
class BadSettingsIT {

    /** The JVM of each refused start: the first JIT tier only (see the class comment). */
    private static final List<String> SHORT_LIVED_JVM = List.of("-XX:TieredStopAtLevel=1");

    /** Far above the 2 to 5 s a refused start takes; a start that goes on to the database fails later and otherwise. */
    private static final Duration EXIT_BOUND = Duration.ofSeconds(45);

    private static final String SIGNING_KEY = "a-signing-key-that-is-long-enough-for-hmac";
    private static final String KEY_16_BYTES = Base64.getEncoder().encodeToString(new byte[16]);
    private static final String KEY_32_BYTES = Base64.getEncoder().encodeToString(new byte[32]);

    static Stream<Arguments> badValues() {
        return Stream.of(
                bad("pigeon.max-queues-per-page", "PIGEON_MAX_QUEUES_PER_PAGE", "0"),
                bad("pigeon.max-request-body", "PIGEON_MAX_REQUEST_BODY", "-1"),
                bad("pigeon.max-claim-ttl", "PIGEON_MAX_CLAIM_TTL", "59"),
                bad("pigeon.quotas.max-queues-per-project", "PIGEON_QUOTAS_MAX_QUEUES_PER_PROJECT", "0"),
                bad("pigeon.console.queues-per-page", "PIGEON_CONSOLE_QUEUES_PER_PAGE", "501"),
                bad(
                        "pigeon.dispatch.max-calls-per-host-per-second",
                        "PIGEON_DISPATCH_MAX_CALLS_PER_HOST_PER_SECOND",
                        "2000000000"),
                bad("pigeon.max-messages-per-page", "PIGEON_MAX_MESSAGES_PER_PAGE", "twenty"),
                bad("pigeon.dispatch.call-timeout", "PIGEON_DISPATCH_CALL_TIMEOUT", "0s"),
                bad("pigeon.websocket.idle-timeout", "PIGEON_WEBSOCKET_IDLE_TIMEOUT", "-PT5S"),
                bad("pigeon.scaler.recheck", "PIGEON_SCALER_RECHECK", "soon"),
                bad("pigeon.redrive.lease", "PIGEON_REDRIVE_LEASE", "1s"),
                bad("pigeon.sweeper.interval", "PIGEON_SWEEPER_INTERVAL", "0s"),
                bad("pigeon.quotas.check-interval", "PIGEON_QUOTAS_CHECK_INTERVAL", "off"),
                bad("pigeon.vacuum.interval", "PIGEON_VACUUM_INTERVAL", "sometimes"),
                bad("pigeon.signed-url.secret-key", "PIGEON_SIGNED_URL_SECRET_KEY", "short-key"),
                bad("pigeon.signed-url.keys.k1", "PIGEON_SIGNED_URL_KEYS_K1", "short-key"),
                bad(
                        "pigeon.signed-url.signing-key",
                        Map.of("PIGEON_SIGNED_URL_SECRET_KEY", SIGNING_KEY, "PIGEON_SIGNED_URL_SIGNING_KEY", "k9")),
                bad("pigeon.encryption.keys.k1", "PIGEON_ENCRYPTION_KEYS_K1", KEY_16_BYTES),
                bad("pigeon.encryption.keys.k1", "PIGEON_ENCRYPTION_KEYS_K1", "not base64!"),
                bad(
                        "pigeon.encryption.current-key",
                        Map.of("PIGEON_ENCRYPTION_KEYS_K1", KEY_32_BYTES, "PIGEON_ENCRYPTION_KEYS_K2", KEY_32_BYTES)),
                bad("pigeon.auth.mode", "PIGEON_AUTH_MODE", "ldap"),
                bad("pigeon.claim-wait.renewal", "PIGEON_CLAIM_WAIT_RENEWAL", "30s"),
                bad("pigeon.claim-wait.max", "PIGEON_CLAIM_WAIT_MAX", "-1"),
                bad("pigeon.queue-metrics.sample-period", "PIGEON_QUEUE_METRICS_SAMPLE_PERIOD", "0s"),
                bad("pigeon.http.allowed-hosts", "PIGEON_HTTP_ALLOWED_HOSTS", "*.com"),
                bad("pigeon.socket-subscriptions.renewal", "PIGEON_SOCKET_SUBSCRIPTIONS_RENEWAL", "1m"),
                bad("pigeon.default-claim-ttl", "PIGEON_DEFAULT_CLAIM_TTL", "50000"),
                bad("pigeon.idempotency.default-window", "PIGEON_IDEMPOTENCY_DEFAULT_WINDOW", "4000"),
                bad("pigeon.redrive.default-rate", "PIGEON_REDRIVE_DEFAULT_RATE", "2000"),
                bad(
                        "pigeon.redrive.max-running-per-project-per-replica",
                        "PIGEON_REDRIVE_MAX_RUNNING_PER_PROJECT_PER_REPLICA",
                        "17"),
                bad("pigeon.dispatch.retry-initial", "PIGEON_DISPATCH_RETRY_INITIAL", "10m"),
                bad("pigeon.dispatch.ontime-horizon", "PIGEON_DISPATCH_ONTIME_HORIZON", "90d"),
                bad("pigeon.dispatch.allowed-ports", "PIGEON_DISPATCH_ALLOWED_PORTS", "443,70000"),
                bad("pigeon.dispatch.allowed-targets", "PIGEON_DISPATCH_ALLOWED_TARGETS", "10.0.0.0/33"),
                bad(
                        "pigeon.notification.mail.confirmation-url",
                        "PIGEON_NOTIFICATION_MAIL_CONFIRMATION_URL",
                        "confirm.example.com/page"),
                bad("pigeon.console.session-secret", "PIGEON_CONSOLE_SESSION_SECRET", "too-short"),
                bad(
                        "quarkus.otel.traces.sampler.arg",
                        Map.of(
                                "QUARKUS_OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
                                "http://127.0.0.1:4318",
                                "QUARKUS_OTEL_TRACES_SAMPLER_ARG",
                                "2")));
    }

    @ParameterizedTest(name = "{0} = {1}")
    @MethodSource("badValues")
    void aSettingOutOfItsBoundStopsTheStartNamingIt(String setting, Map<String, String> environment) throws Exception {
        String output = startAndWaitForExit(setting, environment);
        assertTrue(
                output.lines()
                        .anyMatch(
                                line -> line.contains(setting) && !line.strip().startsWith("at ")),
                "no line names " + setting + ":\n" + output);
        assertNeverReachedTheDatabase(output);
    }

    /**
     * A setting Quarkus fixes at build time, given again at start, stops the start naming it (Pigeon sets
     * {@code quarkus.config.build-time-mismatch-at-runtime=fail}; Quarkus's own default would only warn and go on
     * with the built value), before anything connects.
     */
    @Test
    void aBuildTimeSettingGivenAtStartStopsItNamingIt() throws Exception {
        String output =
                startAndWaitForExit("quarkus.otel.traces.sampler", Map.of("QUARKUS_OTEL_TRACES_SAMPLER", "always_off"));
        assertTrue(
                output.lines()
                        .anyMatch(line -> line.contains("quarkus.otel.traces.sampler is set to 'always_off'")
                                && !line.strip().startsWith("at ")),
                "no line names the setting:\n" + output);
        assertFalse(output.contains("Connection refused"), "it went on to the database:\n" + output);
    }

    /**
     * A misspelt key under {@code pigeon.*} is read by no mapping and stops the start naming it (SmallRye Config's
     * "does not map to any root"), whichever mapping's prefix it falls under: the settings are split among mappings
     * whose prefixes nest ({@code pigeon} and {@code pigeon.dispatch}), and none of them may let it pass unnoticed.
     * Given as a system property: keys from the environment cannot be told from other variables, so they are not held
     * to this.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"pigeon.dispatch.max-concurency", "pigeon.max-queues-per-pag", "pigeon.dispatc.enabled"})
    void aMisspeltKeyStopsTheStartNamingIt(String key) throws Exception {
        String output = startAndWaitForExit(key, Map.of(), List.of("-D" + key + "=5"));
        assertTrue(
                output.lines()
                        .anyMatch(line -> line.contains(key) && !line.strip().startsWith("at ")),
                "no line names " + key + ":\n" + output);
        assertFalse(output.contains("Connection refused"), "it went on to the database:\n" + output);
    }

    /** A message key file of a mounted secret directory is held to the same rule as a key given directly. */
    @Test
    void aBadKeyInTheKeyDirectoryStopsTheStart(@TempDir Path directory) throws Exception {
        Files.writeString(directory.resolve("mounted"), KEY_16_BYTES + "\n");
        String output = startAndWaitForExit(
                "key directory",
                Map.of(
                        "PIGEON_ENCRYPTION_KEY_DIRECTORY",
                        directory.toString(),
                        "PIGEON_ENCRYPTION_CURRENT_KEY",
                        "mounted"));
        assertTrue(output.contains("pigeon.encryption.keys.mounted must be 32 bytes"), output);
        assertNeverReachedTheDatabase(output);
    }

    /**
     * The harness tells the two apart: with every setting within its bound the same start gets past the check and
     * fails on the database nobody listens on, later and with no line about settings.
     */
    @Test
    void withGoodSettingsTheStartGetsToTheDatabase() throws Exception {
        String output = startAndWaitForExit(
                "good settings",
                Map.of(
                        "PIGEON_SIGNED_URL_SECRET_KEY", SIGNING_KEY,
                        "PIGEON_ENCRYPTION_KEYS_K1", KEY_32_BYTES,
                        "PIGEON_CLAIM_WAIT_RENEWAL", "29s"));
        assertFalse(output.contains("Configuration validation failed"), output);
        assertTrue(output.contains("Connection refused") || output.contains("refused"), output);
    }

    private static Arguments bad(String setting, String variable, String value) {
        return bad(setting, Map.of(variable, value));
    }

    private static Arguments bad(String setting, Map<String, String> environment) {
        return Arguments.of(setting, environment);
    }

    /** Starts the packaged Pigeon with {@code environment} and a closed database port; its output once it exited. */
    private static String startAndWaitForExit(String name, Map<String, String> environment) throws Exception {
        return startAndWaitForExit(name, environment, List.of());
    }

    private static String startAndWaitForExit(String name, Map<String, String> environment, List<String> jvmOptions)
            throws Exception {
        Map<String, String> settings = new HashMap<>(environment);
        // Port 1 (tcpmux): nothing listens there, and no other test can take it.
        settings.put("QUARKUS_DATASOURCE_REACTIVE_URL", "postgresql://127.0.0.1:1/pigeon");
        settings.put("QUARKUS_DATASOURCE_USERNAME", "pigeon");
        settings.put("QUARKUS_DATASOURCE_PASSWORD", "pigeon");
        List<String> options = new ArrayList<>(SHORT_LIVED_JVM);
        options.addAll(jvmOptions);
        Replica replica = Replica.start("bad-settings", settings, options);
        try {
            boolean exited = replica.process().waitFor(EXIT_BOUND.toSeconds(), TimeUnit.SECONDS);
            String output = Files.readString(replica.log());
            assertTrue(exited, name + ": still running after " + EXIT_BOUND + ":\n" + output);
            assertNotEquals(0, replica.process().exitValue(), name + ": exited 0:\n" + output);
            // Never served: Quarkus logs its start ("started in") only once it listens.
            assertFalse(output.contains("started in"), name + ": it started:\n" + output);
            return output;
        } finally {
            replica.kill();
            Files.deleteIfExists(replica.log());
        }
    }

    /** Refused by the check, not by the database: the configuration is checked before anything connects. */
    private static void assertNeverReachedTheDatabase(String output) {
        assertTrue(output.contains("Configuration validation failed"), output);
        assertFalse(output.contains("Connection refused"), "it went on to the database:\n" + output);
    }
}
