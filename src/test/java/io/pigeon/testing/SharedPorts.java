package io.pigeon.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;

/**
 * Free ports that a test profile and its test classes agree on: a profile is loaded by JUnit's class loader and by
 * Quarkus's, so a port chosen in a static field would differ between them.
 */
public final class SharedPorts {

    private SharedPorts() {}

    /**
     * A free port, the same in every class loader of this JVM: the first to ask chooses it and leaves it in the system
     * property {@code property} for the others.
     */
    public static synchronized int chosen(String property) {
        String chosen = System.getProperty(property);
        if (chosen != null) {
            return Integer.parseInt(chosen);
        }
        try (ServerSocket socket = new ServerSocket(0)) {
            System.setProperty(property, Integer.toString(socket.getLocalPort()));
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
