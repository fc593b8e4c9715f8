package io.pigeon.clients;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.pigeon.testing.Api;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The SQS clients people use, each as a real program against this Pigeon (the scripts in src/test/clients and
 * src/test/js): Debian's python3-boto3 and awscli (the query protocol), and @aws-sdk/client-sqs v3 from npm (the
 * JSON protocol, with queue URLs on another host name than its endpoint, since that SDK sends each queue call to its
 * queue URL's host), and boto3 with python-zaqarclient on one queue. Each runs where its client is installed
 * (.ci/run installs them all) and is skipped elsewhere. The steps that need SQS messages are tagged
 * {@value SqsJavaSdkMessageTest#MESSAGES}.
 */
@QuarkusTest
class SqsClientScenarioTest {

    private static final String PYTHON = "/usr/bin/python3";
    private static final String AWS_CLI = "/usr/bin/aws";
    private static final Path JS_SDK = Path.of("src/test/js/node_modules/@aws-sdk/client-sqs");

    @Test
    void boto3QueueActions() throws Exception {
        requirePython("import boto3", "python3-boto3");
        assertPassed(run(PYTHON, "src/test/clients/sqs_boto3_scenario.py", pigeonUrl(), "queues"));
    }

    @Test
    @Tag(SqsJavaSdkMessageTest.MESSAGES)
    void boto3MessageActions() throws Exception {
        requirePython("import boto3", "python3-boto3");
        assertPassed(run(PYTHON, "src/test/clients/sqs_boto3_scenario.py", pigeonUrl(), "messages"));
    }

    /** A FIFO queue through boto3 (issue 43): groups, order, deduplication, SequenceNumber, AWS's refusals. */
    @Test
    void boto3FifoQueue() throws Exception {
        requirePython("import boto3", "python3-boto3");
        assertPassed(run(PYTHON, "src/test/clients/sqs_boto3_scenario.py", pigeonUrl(), "fifo"));
    }

    @Test
    void awsCliQueueActions() throws Exception {
        assumeTrue(Files.isExecutable(Path.of(AWS_CLI)), "awscli is not installed (apt-get install awscli)");
        assertPassed(run("bash", "src/test/clients/sqs_awscli_scenario.sh", pigeonUrl(), "queues"));
    }

    @Test
    @Tag(SqsJavaSdkMessageTest.MESSAGES)
    void awsCliMessageActions() throws Exception {
        assumeTrue(Files.isExecutable(Path.of(AWS_CLI)), "awscli is not installed (apt-get install awscli)");
        assertPassed(run("bash", "src/test/clients/sqs_awscli_scenario.sh", pigeonUrl(), "messages"));
    }

    @Test
    void javaScriptSdkQueueActions() throws Exception {
        requireJavaScriptSdk();
        assertPassed(run("node", "src/test/js/sqs_js_scenario.js", String.valueOf(RestAssured.port), "queues"));
    }

    @Test
    @Tag(SqsJavaSdkMessageTest.MESSAGES)
    void javaScriptSdkMessageActions() throws Exception {
        requireJavaScriptSdk();
        assertPassed(run("node", "src/test/js/sqs_js_scenario.js", String.valueOf(RestAssured.port), "messages"));
    }

    /** boto3 sends, python-zaqarclient claims and deletes; python-zaqarclient posts, boto3 receives the same body. */
    @Test
    @Tag(SqsJavaSdkMessageTest.MESSAGES)
    void boto3AndZaqarClientShareAQueue() throws Exception {
        requirePython("import boto3, zaqarclient", "python3-boto3 and python3-zaqarclient");
        assertPassed(run(PYTHON, "src/test/clients/sqs_cross_api.py", pigeonUrl()));
    }

    static String pigeonUrl() {
        Api.newProject(); // the scripts make their own projects; this only ties the class to the shared database
        return RestAssured.baseURI + ":" + RestAssured.port;
    }

    private static void requirePython(String statement, String packages) throws Exception {
        assumeTrue(Files.isExecutable(Path.of(PYTHON)), "no " + PYTHON);
        Process probe = new ProcessBuilder(PYTHON, "-c", statement)
                .redirectErrorStream(true)
                .start();
        assumeTrue(
                probe.waitFor(60, TimeUnit.SECONDS) && probe.exitValue() == 0,
                packages + " not installed (apt-get install " + packages.replace(" and ", " ") + ")");
    }

    private static void requireJavaScriptSdk() {
        assumeTrue(Files.isDirectory(JS_SDK), "@aws-sdk/client-sqs is not installed (cd src/test/js && npm ci)");
    }

    private static void assertPassed(String output) {
        assertTrue(output.contains("all steps passed"), output);
    }

    /** Runs a client program to its end and gives what it printed; fails when it fails or hangs. */
    static String run(String... command) throws IOException, InterruptedException {
        Path log = Files.createTempFile("sqs-client", ".log"); // a file, so that a talkative client never blocks
        ProcessBuilder builder = new ProcessBuilder(new ArrayList<>(List.of(command)))
                .redirectErrorStream(true)
                .redirectOutput(log.toFile());
        builder.environment().put("NODE_NO_WARNINGS", "1"); // the SDK's notice about future Node.js versions
        Process process = builder.start();
        boolean finished = process.waitFor(120, TimeUnit.SECONDS);
        if (!finished) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        String output = Files.readString(log, StandardCharsets.UTF_8);
        Files.delete(log);
        System.out.println(output);
        assertTrue(finished, "the client did not finish in time:\n" + output);
        assertEquals(0, process.exitValue(), output);
        return output;
    }
}
