package io.pigeon.api.console;

import io.pigeon.testing.Api;
import io.pigeon.testing.SharedPorts;
import io.quarkus.test.junit.QuarkusTestProfile;
import java.util.Map;

/**
 * The console limited to five projects (pigeon.console.projects), new ones per run so that the tests need no clean-up
 * on a shared database: the chooser lists them, and any other project's pages are refused. Queues are sampled every
 * second (the test profile's period).
 *
 * <p>Also tracing with a sample share of 0 (TracingSampleRatioTest), exported to a collector that test starts on a free
 * port ({@link #OTLP_PORT}): only requests whose caller sampled them are recorded, and the console's classes send no
 * {@code traceparent}, so their requests make no span and nothing they check changes.
 */
public class ConsoleProfile implements QuarkusTestProfile {

    // Kept in a system property: the profile is also loaded by Quarkus's class loader, whose static fields are others.
    private static final String[] PROJECTS = System.getProperties()
            .computeIfAbsent(
                    "console-browser-test.projects",
                    key -> Api.newProject() + "," + Api.newProject() + "," + Api.newProject() + "," + Api.newProject()
                            + ",r&d+#" + Api.newProject())
            .toString()
            .split(",");

    static final String SHOWN = PROJECTS[0];
    static final String ALSO_SHOWN = PROJECTS[1];
    /** The project that holds 10,000 queues. */
    static final String LARGE = PROJECTS[2];
    /** The project that holds 1,000 queues, each with an hour of flow, whose table page is weighed and timed. */
    static final String THOUSAND = PROJECTS[3];
    /** A project whose id holds characters a URL must encode ({@code &}, {@code +}, {@code #}). */
    static final String ODD = PROJECTS[4];

    /** Where TracingSampleRatioTest's OTLP collector listens, chosen once before Quarkus starts. */
    public static final int OTLP_PORT = SharedPorts.chosen("tracing-sample-test.otlp-port");

    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of(
                "pigeon.console.projects", String.join(",", PROJECTS),
                "quarkus.otel.exporter.otlp.traces.endpoint", "http://127.0.0.1:" + OTLP_PORT,
                "quarkus.otel.exporter.otlp.traces.protocol", "http/protobuf",
                "quarkus.otel.bsp.schedule.delay", "1s",
                "quarkus.otel.traces.sampler.arg", "0");
    }
}
