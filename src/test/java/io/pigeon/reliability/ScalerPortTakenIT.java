package io.pigeon.reliability;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.testing.PostgresResource;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A gRPC port (the KEDA external scaler's) that cannot be bound stops the start, naming the setting: before, Pigeon
 * logged one ERROR and ran with readiness DOWN for ever (two instances on one host both wanting 9010).
 */
class ScalerPortTakenIT {

    @Test
    void aTakenGrpcPortStopsTheStartNamingTheSetting() throws Exception {
        Map<String, String> config = new HashMap<>(new PostgresResource().start());
        // Another process holds the port on every address, so that Pigeon cannot bind it on its host either.
        try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getByName("0.0.0.0"))) {
            config.put("quarkus.grpc.server.port", Integer.toString(taken.getLocalPort()));
            Replica pigeon = Replica.start("grpc-port-taken", config, Replica.FIRST_JIT_TIER);
            try {
                boolean exited = pigeon.process().waitFor(120, TimeUnit.SECONDS);
                String log = Files.readString(pigeon.log());
                assertTrue(exited, "Pigeon still runs with its gRPC port taken:\n" + log);
                assertNotEquals(0, pigeon.process().exitValue(), log);
                assertTrue(log.contains("quarkus.grpc.server.port (" + taken.getLocalPort() + ")"), log);
            } finally {
                if (pigeon.alive()) {
                    pigeon.kill();
                }
            }
            assertFalse(pigeon.alive());
        }
    }
}
