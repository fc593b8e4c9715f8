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
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Connections nobody uses are closed, and no more than the limit are open at once (this profile: idle 5 s, 1,000
 * connections; shipped: 120 s and 4,096), counted from the moment they are accepted, so sockets that never send a
 * request cannot exhaust the process's file descriptors either.
 *
 * <p>The idle test runs first: it waits until the server closes its own idle connection, by which time every
 * connection left open by earlier test classes (RestAssured's) has been idle as long and is closed too, so the
 * tests counting slots start with none taken.
 */
@QuarkusTest
@TestProfile(SmallQuotasProfile.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ConnectionLimitsTest {

    private static final int LIMIT = 1000;
    /** Connections opened past the limit, to see each of them closed. */
    private static final int PAST_LIMIT = 20;

    private static final String HEALTH = "GET /v1/health HTTP/1.1\r\nHost: localhost\r\n\r\n";
    /** A request head that is never finished. */
    private static final String HALF_HEAD = "GET /v1/health HTTP/1.1\r\n";

    /**
     * The client addresses the many connections of these tests come from, so that each holds fewer than its share
     * (pigeon.http.max-connections-per-address, 500 here; SlowClientsTest checks it) and only the replica's limit
     * refuses them.
     */
    private static final int ADDRESSES = 4;

    private static InetAddress address(int connection) throws IOException {
        return InetAddress.getByName("127.0.0." + (10 + connection % ADDRESSES));
    }

    private static Socket connect() throws IOException {
        return connect(InetAddress.getLoopbackAddress());
    }

    private static Socket connect(InetAddress from) throws IOException {
        Socket socket = new Socket(InetAddress.getLoopbackAddress(), RestAssured.port, from, 0);
        // Far beyond the idle timeout under test: a read that waits this long means nothing was closed.
        socket.setSoTimeout(30_000);
        return socket;
    }

    /** Sends a request on a kept-alive connection and reads its answer's head; null when the server closed instead. */
    /** Well under the profile's 5 s idle timeout. */
    private static final long KEEP_USED_NANOS = Duration.ofSeconds(2).toNanos();

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
    @Order(1)
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
    @Order(2)
    void silentAndHalfSentConnectionsHoldSlotsAndThoseBeyondTheLimitAreClosedAtOnce() throws IOException {
        InetSocketAddress server = new InetSocketAddress(InetAddress.getLoopbackAddress(), RestAssured.port);
        List<SocketChannel> opened = new ArrayList<>();
        Set<SocketChannel> closedByServer = new HashSet<>();
        try {
            // Every other one sends nothing at all; the rest send a request line and never finish the head.
            for (int i = 0; i < LIMIT + PAST_LIMIT; i++) {
                SocketChannel channel = SocketChannel.open();
                opened.add(channel);
                channel.bind(new InetSocketAddress(address(i), 0));
                channel.connect(server);
                if (i % 2 == 1) {
                    channel.write(ByteBuffer.wrap(HALF_HEAD.getBytes(StandardCharsets.US_ASCII)));
                }
                channel.configureBlocking(false);
            }
            // Well within the 5 s idle timeout: what is closed by then was closed for the limit, not for silence.
            Eventually.await(
                    PAST_LIMIT + " of " + (LIMIT + PAST_LIMIT) + " silent or half-sent connections closed",
                    Duration.ofSeconds(3),
                    () -> {
                        for (SocketChannel channel : opened) {
                            if (!closedByServer.contains(channel) && isClosedByServer(channel)) {
                                closedByServer.add(channel);
                            }
                        }
                        return closedByServer.size() >= PAST_LIMIT;
                    });
            // The other 1,000 hold every slot: a client with a whole request is refused too.
            try (Socket probe = connect()) {
                assertEquals(null, exchange(probe), "a new connection was served while the limit was held");
            }
        } finally {
            for (SocketChannel channel : opened) {
                channel.close();
            }
        }
        // Closing them gives the slots back (well before the idle timeout would).
        Eventually.await("a connection served once the silent ones are closed", Duration.ofSeconds(3), () -> {
            try (Socket socket = connect()) {
                String head = exchange(socket);
                return head != null && head.startsWith("HTTP/1.1 204");
            } catch (IOException e) {
                return false;
            }
        });
    }

    /** Whether the server has closed (or reset) this connection; never waits. */
    private static boolean isClosedByServer(SocketChannel channel) {
        try {
            return channel.read(ByteBuffer.allocate(256)) < 0;
        } catch (IOException e) {
            return true;
        }
    }

    @Test
    @Order(3)
    void connectionsPastTheLimitAreClosedAndTheOthersKeepWorking() throws IOException {
        List<Socket> open = new ArrayList<>();
        try {
            Integer refusedAt = null;
            // Opening a thousand connections can take longer than the 5 s idle timeout on a loaded machine, and an
            // early connection closed for silence would free a slot: each one is used again once 2 s passed since its
            // last answer, so that only the limit closes any of them. The oldest use is always first in line.
            ArrayDeque<Integer> byLastUse = new ArrayDeque<>();
            long[] lastUse = new long[LIMIT + 5];
            for (int i = 0; i < LIMIT + 5 && refusedAt == null; i++) {
                while (!byLastUse.isEmpty() && System.nanoTime() - lastUse[byLastUse.peekFirst()] > KEEP_USED_NANOS) {
                    int earlier = byLastUse.pollFirst();
                    String head = exchange(open.get(earlier));
                    assertTrue(
                            head != null && head.startsWith("HTTP/1.1 204"),
                            "connection " + (earlier + 1) + " used again answered: " + head);
                    lastUse[earlier] = System.nanoTime();
                    byLastUse.addLast(earlier);
                }
                Socket socket = connect(address(i));
                open.add(socket);
                if (exchange(socket) == null) {
                    refusedAt = i;
                } else {
                    lastUse[i] = System.nanoTime();
                    byLastUse.addLast(i);
                }
            }
            assertTrue(refusedAt != null, (LIMIT + 5) + " connections were all served");
            // Connections opened by earlier tests and not yet idle long enough count too: the refusal may come sooner.
            assertTrue(refusedAt <= LIMIT, "refused only at connection " + (refusedAt + 1));
            // Oldest use first, so that each is used again before the idle timeout could close it.
            for (int i : byLastUse) {
                String head = exchange(open.get(i));
                assertTrue(
                        head != null && head.startsWith("HTTP/1.1 204"),
                        "connection " + (i + 1) + " answered: " + head);
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

    @Test
    @Order(4)
    void plainHttpIsHttp1OnlyAndAnH2cUpgradeIsAnsweredInHttp1() throws IOException {
        // Cleartext HTTP/2 stays off: with it on, connections are counted only once a whole head is read.
        try (Socket socket = connect()) {
            socket.getOutputStream()
                    .write(("GET /v1/health HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade, HTTP2-Settings\r\n"
                                    + "Upgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQCAAAAAAIAAAAA\r\n\r\n")
                            .getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            InputStream in = socket.getInputStream();
            ByteArrayOutputStream head = new ByteArrayOutputStream();
            int b;
            while (!head.toString(StandardCharsets.US_ASCII).endsWith("\r\n\r\n") && (b = in.read()) >= 0) {
                head.write(b);
            }
            assertTrue(head.toString(StandardCharsets.US_ASCII).startsWith("HTTP/1.1 204"), "answered: " + head);
        }
    }
}
