package io.pigeon.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The ratio benchmark finds the processes it measures and pins by the port they listen on, so that on a machine shared
 * with other Pigeons and PostgreSQL servers it counts and moves its own only. Checked here on a real listening socket
 * of this JVM (Linux's /proc, as the benchmark). Plain JUnit: no application start.
 */
class SystemUnderTestTest {

    @Test
    void theProcessListeningOnAPortIsTheOneHoldingTheSocket() throws Exception {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            long self = ProcessHandle.current().pid();
            assertEquals(Optional.of(self), SystemUnderTest.listeningOn(socket.getLocalPort()));
            assertEquals(
                    Optional.of(self),
                    SystemUnderTest.findJvm("", "http://localhost:" + socket.getLocalPort())
                            .map(ProcessHandle::pid));
        }
    }

    @Test
    void aPortNobodyListensOnFindsNoProcess() throws Exception {
        int port;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = socket.getLocalPort();
        }
        assertEquals(Optional.empty(), SystemUnderTest.listeningOn(port));
    }

    @Test
    void aGivenProcessIdWinsOverThePort() {
        long self = ProcessHandle.current().pid();
        assertEquals(
                Optional.of(self),
                SystemUnderTest.findJvm(" " + self + " ", "http://localhost:1").map(ProcessHandle::pid));
    }

    @Test
    void ticksCountThisProcessesCpuAndNothingForOneThatIsGone() {
        long spent = 0;
        for (int i = 0; i < 50_000_000; i++) {
            spent += i % 7;
        }
        assertTrue(spent > 0);
        assertTrue(SystemUnderTest.ticks(ProcessHandle.current().pid(), false) > 0, "this JVM has used CPU");
        assertEquals(0, SystemUnderTest.ticks(Long.MAX_VALUE, false));
    }
}
