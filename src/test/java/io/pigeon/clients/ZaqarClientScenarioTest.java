package io.pigeon.clients;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.pigeon.testing.Api;
import io.pigeon.testing.Db;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The official python-zaqarclient against this Pigeon: the v2 scenario (create queue, metadata, post, list
 * with paging, claim, renew, delete with claim id, release, stats, pop, delete queue), subscriptions with a
 * webhook that receives a notification, pools and flavors, the websocket transport, and the v1 smoke test.
 * Runs where Debian's python3-zaqarclient is installed (.ci/run installs it); skipped elsewhere.
 */
@QuarkusTest
class ZaqarClientScenarioTest {

    @Inject
    Pool pool;

    private static final String PYTHON = "/usr/bin/python3";

    @BeforeAll
    static void requireTheClient() throws Exception {
        assumeTrue(Files.isExecutable(Path.of(PYTHON)), "no " + PYTHON);
        assumeTrue(
                runs("import zaqarclient"),
                "python3-zaqarclient is not installed (apt-get install python3-zaqarclient)");
    }

    /** Whether the Python statement runs (a module is installed). */
    private static boolean runs(String statement) throws IOException, InterruptedException {
        Process probe = new ProcessBuilder(PYTHON, "-c", statement)
                .redirectErrorStream(true)
                .start();
        return probe.waitFor(60, TimeUnit.SECONDS) && probe.exitValue() == 0;
    }

    @Test
    void v2Scenario() throws Exception {
        String output = run("src/test/clients/zaqarclient_v2_scenario.py", pigeonUrl());
        assertTrue(output.contains("all steps passed"), output);
    }

    @Test
    void v11Scenario() throws Exception {
        String output = run("src/test/clients/zaqarclient_v2_scenario.py", pigeonUrl(), "1.1");
        assertTrue(output.contains("all steps passed"), output);
    }

    @Test
    void v2Subscriptions() throws Exception {
        String output = run("src/test/clients/zaqarclient_subscriptions.py", pigeonUrl());
        assertTrue(output.contains("all steps passed"), output);
    }

    @Test
    void v2PoolsAndFlavors() throws Exception {
        String output =
                run("src/test/clients/zaqarclient_pools.py", pigeonUrl(), Db.newDatabase(pool), Db.newDatabase(pool));
        assertTrue(output.contains("all steps passed"), output);
    }

    /** The client's websocket transport (python3-websocket): its requests, and a socket subscription pushed to. */
    @Test
    void v2OverWebSocket() throws Exception {
        assumeTrue(runs("import websocket"), "python3-websocket is not installed (apt-get install python3-websocket)");
        String output = run("src/test/clients/zaqarclient_websocket.py", pigeonUrl());
        assertTrue(output.contains("all steps passed"), output);
    }

    @Test
    void v1Smoke() throws Exception {
        String output = run("src/test/clients/zaqarclient_smoke.py", pigeonUrl(), "1");
        assertTrue(output.contains("all checks passed"), output);
    }

    private static String pigeonUrl() {
        Api.newProject(); // the scripts make their own projects; this only ties the class to the shared database
        return RestAssured.baseURI + ":" + RestAssured.port;
    }

    private static String run(String script, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(PYTHON, script));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        boolean finished = process.waitFor(120, TimeUnit.SECONDS);
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        System.out.println(output);
        assertTrue(finished, "the client did not finish in time:\n" + output);
        assertEquals(0, process.exitValue(), output);
        return output;
    }
}
