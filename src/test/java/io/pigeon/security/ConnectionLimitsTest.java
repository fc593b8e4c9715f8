package io.pigeon.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.quota.SmallQuotasProfile;
import io.pigeon.testing.Eventually;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.RestAssured;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Connections nobody uses are closed, and no more than the limit are open at once (this profile: idle 5 s, 200
 * connections; shipped: 120 s and 4,096), so idle sockets cannot exhaust the process's file descriptors.
 */
@QuarkusTest
@TestProfile(SmallQuotasProfile.class)
class ConnectionLimitsTest {

    private static final int LIMIT = 200;
    private static final String HEALTH = "GET /v1/health HTTP/1.1\r\nHost: localhost\r\n\r\n";

    private static Socket connect() throws IOException {
        Socket socket = new Socket(InetAddress.getLoopbackAddress(), RestAssured.port);
        // Far beyond the idle timeout under test: a read that waits this long means nothing was closed.
        socket.setSoTimeout(30_000);
        return socket;
    }

    /** Sends a request on a kept-alive connection and reads its answer's head; null when the server closed instead. */
    private static String exchange(Socket socket) throws IOException {
        try {
            socket.getOutputStream().write(HEALTH.getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            InputStream in = socket.getInputStream();
            ByteArrayOutputStream head = new ByteArrayOutputStream();
            while (!head.toString(StandardCharsets.US_ASCII).endsWith("\r\n\r\n")) {
                int b = in.read();
                if (b < 0) {
                    return null;
                }
                head.write(b);
            }
            return head.toString(StandardCharsets.US_ASCII);
        } catch (SocketTimeoutException e) {
            throw e;
        } catch (IOException e) {
            // Reset by the server: refused as well.
            return null;
        }
    }

    @Test
    void anIdleKeptAliveConnectionIsClosed() throws IOException {
        try (Socket socket = connect()) {
            String head = exchange(socket);
            assertTrue(head != null && head.startsWith("HTTP/1.1 204"), "answered: " + head);
            long start = System.nanoTime();
            int read;
            try {
                read = socket.getInputStream().read();
            } catch (SocketTimeoutException e) {
                throw new AssertionError("the idle connection was still open after 30 s", e);
            } catch (IOException e) {
                read = -1;
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            assertEquals(-1, read, "the server closed the connection");
            assertTrue(seconds > 3, "closed after " + seconds + " s of silence, not at once");
        }
    }

    @Test
    void connectionsPastTheLimitAreClosedAndTheOthersKeepWorking() throws IOException {
        List<Socket> open = new ArrayList<>();
        try {
            Integer refusedAt = null;
            for (int i = 0; i < LIMIT + 5 && refusedAt == null; i++) {
                Socket socket = connect();
                open.add(socket);
                if (exchange(socket) == null) {
                    refusedAt = i;
                }
            }
            assertTrue(refusedAt != null, (LIMIT + 5) + " connections were all served");
            // Connections opened by earlier tests and not yet idle long enough count too: the refusal may come sooner.
            assertTrue(refusedAt <= LIMIT, "refused only at connection " + (refusedAt + 1));
            for (int i = 0; i < refusedAt; i++) {
                String head = exchange(open.get(i));
                assertTrue(head != null && head.startsWith("HTTP/1.1 204"), "connection " + (i + 1) + " answered: " + head);
            }
        } finally {
            for (Socket socket : open) {
                socket.close();
            }
        }
        // The server counts the closes as it sees them: the tests that follow start once a connection is served again.
        Eventually.await("a connection served again", Duration.ofSeconds(10), () -> {
            try (Socket socket = connect()) {
                return exchange(socket) != null;
            } catch (IOException e) {
                return false;
            }
        });
    }
}
