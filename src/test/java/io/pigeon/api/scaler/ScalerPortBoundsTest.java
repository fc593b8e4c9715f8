package io.pigeon.api.scaler;

import static io.pigeon.api.scaler.ScalerClient.trigger;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import io.pigeon.api.scaler.RawHttp2.Frame;
import io.pigeon.api.scaler.externalscaler.ScaledObjectRef;
import io.pigeon.quota.SmallQuotasProfile;
import io.pigeon.testing.Api;
import io.pigeon.testing.Eventually;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What a client can make the gRPC port hold (SmallQuotasProfile): 6 connections (pigeon.scaler.max-connections), one
 * more closed at once while KEDA's open connection goes on working; 4 of them from one address
 * (pigeon.scaler.max-connections-per-address), while KEDA from another address connects and is answered; the port
 * only on the HTTP host (loopback in tests); a connection that opens no call, with or without
 * its HTTP/2 handshake, closed after 3 s (pigeon.scaler.first-call-timeout); 3 calls per connection
 * (pigeon.scaler.max-calls-per-connection), one more refused; a call whose message never arrives whole ended after 3 s
 * (pigeon.scaler.request-timeout), which frees its place.
 */
@QuarkusTest
@TestProfile(SmallQuotasProfile.class)
class ScalerPortBoundsTest {

    private static final int MAX_CONNECTIONS = 6;
    private static final int MAX_CALLS = 3;
    /** pigeon.scaler.max-connections-per-address, its default. */
    private static final int PER_ADDRESS = 4;

    @Inject
    ScalerConnections connections;

    private final ScaledObjectRef trigger = trigger("project", Api.newProject(), "queue", "bounded");

    /** Reads until the server closes the socket; the bytes it had sent (a connection held first gets its SETTINGS). */
    private static int bytesUntilClosed(Socket socket) throws IOException {
        socket.setSoTimeout(30_000);
        InputStream in = socket.getInputStream();
        int total = 0;
        try {
            for (int read = in.read(new byte[4096]); read >= 0; read = in.read(new byte[4096])) {
                total += read;
            }
        } catch (SocketTimeoutException open) {
            throw new AssertionError("the server did not close the connection", open);
        } catch (IOException reset) {
            // Closed with a reset rather than a FIN: closed all the same.
        }
        return total;
    }

    @Test
    void connectionsPastTheBoundAreClosedAtOnceAndSilentOnesAfterTheFirstCallTimeout() throws Exception {
        int port = ScalerClient.testedPort();
        try (ScalerClient keda = ScalerClient.ofTestedPigeon()) {
            assertFalse(keda.isActive(trigger));
            Eventually.await(
                    "only the scaler client's connection is open",
                    Duration.ofSeconds(10),
                    () -> connections.open() == 1);

            List<Socket> silent = new ArrayList<>();
            try {
                // Each from an address of its own (127.0.0.10, ...), so that the bound met is the one on all
                // connections.
                for (int i = 0; i < MAX_CONNECTIONS + 2; i++) {
                    silent.add(fromAddress("127.0.0." + (10 + i), port));
                }
                Eventually.await(
                        "the bound is reached", Duration.ofSeconds(10), () -> connections.open() == MAX_CONNECTIONS);
                // KEDA's connection, open before, still answers while the port is full.
                assertFalse(keda.isActive(trigger));

                int refused = 0;
                int heldThenClosed = 0;
                for (Socket socket : silent) {
                    if (bytesUntilClosed(socket) == 0) {
                        refused++;
                    } else {
                        heldThenClosed++;
                    }
                }
                assertEquals(3, refused, "connections past the bound are closed before the server sends anything");
                assertEquals(
                        MAX_CONNECTIONS - 1,
                        heldThenClosed,
                        "connections within the bound get the server's settings, then are closed for sending no call");
            } finally {
                for (Socket socket : silent) {
                    socket.close();
                }
            }

            // A connection that completes its handshake and then opens no call is closed too.
            try (RawHttp2 handshaken = new RawHttp2("localhost", port)) {
                handshaken.handshake();
                Frame last;
                try {
                    do {
                        last = handshaken.next();
                    } while (last.type() != RawHttp2.GOAWAY);
                    // After a GOAWAY the server closes the socket.
                    for (; ; ) {
                        handshaken.next();
                    }
                } catch (EOFException closed) {
                    // closed by the server: what the test waits for
                }
            }

            Eventually.await("the silent connections are gone", Duration.ofSeconds(10), () -> connections.open() == 1);
            try (ScalerClient later = ScalerClient.ofTestedPigeon()) {
                assertFalse(later.isActive(trigger));
            }
            assertFalse(keda.isActive(trigger));
        }
    }

    /** A connection to the gRPC port (on loopback) from the local address {@code source}. */
    private static Socket fromAddress(String source, int port) throws IOException {
        return new Socket(InetAddress.getByName("127.0.0.1"), port, InetAddress.getByName(source), 0);
    }

    @Test
    void oneAddressHoldsOnlyItsShareWhileAnotherIsServed() throws Exception {
        int port = ScalerClient.testedPort();
        Eventually.await(
                "no connection of another test is open", Duration.ofSeconds(15), () -> connections.open() == 0);
        List<Socket> silent = new ArrayList<>();
        try {
            for (int i = 0; i < MAX_CONNECTIONS + 2; i++) {
                silent.add(fromAddress("127.0.0.2", port));
            }
            // KEDA, from another address, connects while they are open and is answered.
            try (ScalerClient keda = new ScalerClient("127.0.0.1", port)) {
                assertFalse(keda.isActive(trigger));
            }
            int refused = 0;
            int heldThenClosed = 0;
            for (Socket socket : silent) {
                if (bytesUntilClosed(socket) == 0) {
                    refused++;
                } else {
                    heldThenClosed++;
                }
            }
            assertEquals(
                    PER_ADDRESS,
                    heldThenClosed,
                    "one address holds pigeon.scaler.max-connections-per-address connections, then each is closed");
            assertEquals(MAX_CONNECTIONS + 2 - PER_ADDRESS, refused, "its others are closed at once");
        } finally {
            for (Socket socket : silent) {
                socket.close();
            }
        }
    }

    @Test
    void thePortListensOnTheHttpHostOnly() throws Exception {
        // The test profile's HTTP host is localhost (Quarkus's default in tests): the gRPC port is not on the
        // machine's other addresses.
        List<InetAddress> others = new ArrayList<>();
        for (NetworkInterface network : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            if (network.isUp() && !network.isLoopback()) {
                for (InetAddress address : Collections.list(network.getInetAddresses())) {
                    if (address instanceof Inet4Address) {
                        others.add(address);
                    }
                }
            }
        }
        assumeFalse(others.isEmpty(), "this machine has no address but loopback");
        int port = ScalerClient.testedPort();
        try (ScalerClient local = new ScalerClient("127.0.0.1", port)) {
            assertFalse(local.isActive(trigger), "the port answers on loopback");
        }
        for (InetAddress other : others) {
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress(other, port), 5000);
                throw new AssertionError("the gRPC port accepted a connection on " + other.getHostAddress());
            } catch (ConnectException refused) {
                // nothing listens there: what the test expects
            }
        }
    }

    @Test
    void callsPastTheBoundAreRefusedAndUnfinishedRequestsAreEnded() throws Exception {
        try (RawHttp2 connection = new RawHttp2("localhost", ScalerClient.testedPort())) {
            Map<Integer, Long> settings = connection.handshake();
            assertEquals(
                    (long) MAX_CALLS,
                    settings.get(RawHttp2.SETTINGS_MAX_CONCURRENT_STREAMS),
                    "the server announces its bound on calls");

            // 3 calls that announce a 65,536-byte message and send 1,000 bytes of it, then a 4th call.
            for (int stream = 1; stream <= 2 * MAX_CALLS - 1; stream += 2) {
                connection.call(stream, "IsActive");
                connection.data(stream, RawHttp2.unfinishedMessage(65536, 1000), false);
            }
            int extra = 2 * MAX_CALLS + 1;
            connection.call(extra, "IsActive");

            Map<Integer, Frame> ends = new HashMap<>();
            while (ends.size() < MAX_CALLS + 1) {
                Frame frame = connection.next();
                if (frame.type() == RawHttp2.RST_STREAM && !ends.containsKey(frame.stream())) {
                    ends.put(frame.stream(), frame);
                } else if (frame.type() == RawHttp2.HEADERS && frame.headers().contains("grpc-status")) {
                    ends.put(frame.stream(), frame);
                } else if (frame.type() == RawHttp2.GOAWAY) {
                    throw new AssertionError("the server closed the connection: error " + frame.errorCode());
                }
            }
            Frame refused = ends.get(extra);
            assertEquals(RawHttp2.RST_STREAM, refused.type(), "the call past the bound is reset");
            assertEquals(
                    RawHttp2.REFUSED_STREAM, refused.errorCode(), "gRPC clients read REFUSED_STREAM as UNAVAILABLE");
            for (int stream = 1; stream <= 2 * MAX_CALLS - 1; stream += 2) {
                Frame ended = ends.get(stream);
                assertEquals(RawHttp2.HEADERS, ended.type(), "stream " + stream + " ends with a gRPC status");
                assertTrue(ended.has(RawHttp2.END_STREAM));
                assertEquals("4", ended.headers().get("grpc-status").toString(), "DEADLINE_EXCEEDED");
                assertThat(
                        ended.headers().get("grpc-message").toString(),
                        containsString("pigeon.scaler.request-timeout"));
            }

            // The ended calls' places are free: a whole request on the same connection is answered.
            int whole = extra + 2;
            connection.call(whole, "IsActive");
            connection.data(whole, RawHttp2.message(trigger.toByteArray()), true);
            String status = null;
            boolean answered = false;
            while (status == null) {
                Frame frame = connection.next();
                if (frame.stream() != whole) {
                    continue;
                }
                if (frame.type() == RawHttp2.DATA && frame.payload().length > 0) {
                    answered = true;
                } else if (frame.type() == RawHttp2.RST_STREAM) {
                    throw new AssertionError("the whole request was reset: error " + frame.errorCode());
                } else if (frame.type() == RawHttp2.HEADERS && frame.headers().contains("grpc-status")) {
                    status = frame.headers().get("grpc-status").toString();
                }
            }
            assertEquals("0", status);
            assertTrue(answered, "the answer carries a message");
        }
    }
}
