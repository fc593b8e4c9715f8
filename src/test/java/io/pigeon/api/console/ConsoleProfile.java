package io.pigeon.api.console;

import io.pigeon.testing.Api;
import io.quarkus.test.junit.QuarkusTestProfile;
import java.util.Map;

/**
 * The console limited to five projects (pigeon.console.projects), new ones per run so that the tests need no clean-up
 * on a shared database: the chooser lists them, and any other project's pages are refused. Queues are sampled every
 * second (the test profile's period).
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

    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of("pigeon.console.projects", String.join(",", PROJECTS));
    }
}
