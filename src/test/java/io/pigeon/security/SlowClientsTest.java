package io.pigeon.security;

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
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * A client that sends a request body slowly, a byte at a time so that the idle timeout (5 s here) never fires, is cut
 * by the body's deadline (8 s here, 30 s shipped), and one client address cannot hold more than its share of
 * connections (500 here, 512 shipped), so that its flood leaves room for others. On Linux a client socket can be bound
 * to any 127/8 address: each address here is another client. The head's deadline: {@link RequestHeadDeadlineTest}.
 */
@QuarkusTest
@TestProfile(SmallQuotasProfile.class)
class SlowClientsTest {

    private static final int SHARE = 500;
    /** quarkus.http.limits.max-connections in this profile. */
    private static final int LIMIT = 1000;
    /** Far past the 5 s deadlines and the 5 s idle timeout, yet a bound: what is not cut by then never is. */
    static final int TRICKLED_BYTES = 40;

    static Socket connect(String from) throws IOException {
        Socket socket = new Socket();
        socket.bind(new InetSocketAddress(InetAddress.getByName(from), 0));
        socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), RestAssured.port));
        return socket;
    }

    private static String slowBodyHead() {
        return "POST /v2/queues/slow/messages HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                + "X-Project-Id: " + UUID.randomUUID() + "\r\nClient-ID: " + UUID.randomUUID() + "\r\n"
                + "Content-Length: 100\r\n\r\n";
    }

    /**
     * Sends {@code bytes} one a second after {@code start} and returns what the server answered once it closed the
     * connection (or "" when it closed without a word), failing if it had not after {@link #TRICKLED_BYTES} bytes.
     */
    static String trickle(Socket socket, String start, byte filler) throws IOException {
        socket.getOutputStream().write(start.getBytes(StandardCharsets.US_ASCII));
        socket.getOutputStream().flush();
        socket.setSoTimeout(1000);
        InputStream in = socket.getInputStream();
        ByteArrayOutputStream answer = new ByteArrayOutputStream();
        for (int sent = 0; sent < TRICKLED_BYTES; sent++) {
            try {
                socket.getOutputStream().write(filler);
                socket.getOutputStream().flush();
            } catch (IOException cut) {
                return answer.toString(StandardCharsets.US_ASCII);
            }
            try {
                int read;
                while ((read = in.read()) >= 0) {
                    answer.write(read);
                }
                return answer.toString(StandardCharsets.US_ASCII);
            } catch (SocketTimeoutException quiet) {
                // Nothing yet: the next byte, a second later.
            } catch (IOException reset) {
                return answer.toString(StandardCharsets.US_ASCII);
            }
        }
        throw new AssertionError("still open after " + TRICKLED_BYTES + " bytes sent a second apart; answered: "
                + answer.toString(StandardCharsets.US_ASCII));
    }

    @Test
    void aBodySentAByteASecondIsCutByTheBodyDeadline() throws IOException {
        try (Socket socket = connect("127.0.0.1")) {
            long start = System.nanoTime();
            String answer = trickle(socket, slowBodyHead(), (byte) ' ');
            double seconds = (System.nanoTime() - start) / 1e9;
            // 408 while no answer has begun; a connection cut without a word is a cut too.
            assertTrue(answer.isEmpty() || answer.startsWith("HTTP/1.1 408"), "answered: " + answer);
            assertTrue(seconds >= 7, "cut after " + seconds + " s, before the body deadline");
        }
    }

    /**
     * An SQS request's late body reads AWS's error in its protocol (JSON 1.0 here, with {@code x-amzn-query-error}),
     * which SDKs retry as a transient fault, rather than Zaqar's document; a Zaqar request's stays the document.
     */
    @Test
    void anSqsBodySentAByteASecondReadsRequestTimeout() throws IOException {
        String head = "POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-amz-json-1.0\r\n"
                + "X-Amz-Target: AmazonSQS.ListQueues\r\nAuthorization: AWS4-HMAC-SHA256 Credential="
                + UUID.randomUUID() + "/20261129/us-east-1/sqs/aws4_request, SignedHeaders=host, Signature=0\r\n"
                + "Content-Length: 100\r\n\r\n";
        try (Socket socket = connect("127.0.0.6")) {
            String answer = trickle(socket, head, (byte) ' ');
            assertTrue(answer.startsWith("HTTP/1.1 408"), "answered: " + answer);
            assertTrue(
                    answer.toLowerCase(Locale.ROOT).contains("x-amzn-query-error: requesttimeoutexception;sender"),
                    "answered: " + answer);
            assertTrue(answer.contains("\"__type\":\"com.amazon.coral.service#RequestTimeoutException\""), answer);
        }
        try (Socket socket = connect("127.0.0.7")) {
            String answer = trickle(socket, slowBodyHead(), (byte) ' ');
            assertTrue(answer.startsWith("HTTP/1.1 408") && answer.contains("\"title\":\"Request timeout\""), answer);
        }
    }

    private static String chunkedHead() {
        return "POST /v2/queues/slow/messages HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                + "X-Project-Id: " + UUID.randomUUID() + "\r\nClient-ID: " + UUID.randomUUID() + "\r\n"
                + "Transfer-Encoding: chunked\r\n\r\n";
    }

    /**
     * A chunked body that takes longer than the head's deadline (5 s here) and less than the body's (8 s) is the body's
     * to bound: it is answered, not cut as a late head.
     */
    @Test
    void aChunkedBodySlowerThanTheHeadDeadlineIsServed() throws Exception {
        byte[] body = "{\"messages\":[{\"ttl\":300,\"body\":\"a chunked body, sent slowly\"}]}"
                .getBytes(StandardCharsets.US_ASCII);
        try (Socket socket = connect("127.0.0.4")) {
            socket.setSoTimeout(10_000);
            var out = socket.getOutputStream();
            out.write(chunkedHead().getBytes(StandardCharsets.US_ASCII));
            out.flush();
            int parts = 13; // one every 500 ms: about 6.5 s in all, each gap far below the 5 s idle timeout
            int size = (body.length + parts - 1) / parts;
            for (int from = 0; from < body.length; from += size) {
                Thread.sleep(500);
                int length = Math.min(size, body.length - from);
                out.write((Integer.toHexString(length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
                out.write(body, from, length);
                out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
                out.flush();
            }
            out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            byte[] answer = new byte[64];
            int read = socket.getInputStream().readNBytes(answer, 0, 12);
            String status = new String(answer, 0, read, StandardCharsets.US_ASCII);
            assertTrue(status.startsWith("HTTP/1.1 201"), "answered: " + status);
        }
    }

    /** A chunked body still arriving at the body's deadline (8 s here) is cut, a chunk of one byte a second. */
    @Test
    void aChunkedBodySentAChunkASecondIsCutByTheBodyDeadline() throws IOException {
        try (Socket socket = connect("127.0.0.5")) {
            long start = System.nanoTime();
            socket.getOutputStream().write(chunkedHead().getBytes(StandardCharsets.US_ASCII));
            socket.setSoTimeout(1000);
            InputStream in = socket.getInputStream();
            ByteArrayOutputStream answer = new ByteArrayOutputStream();
            boolean cut = false;
            for (int sent = 0; sent < TRICKLED_BYTES && !cut; sent++) {
                try {
                    socket.getOutputStream().write("1\r\n \r\n".getBytes(StandardCharsets.US_ASCII));
                    socket.getOutputStream().flush();
                } catch (IOException closed) {
                    cut = true;
                    break;
                }
                try {
                    int read;
                    while ((read = in.read()) >= 0) {
                        answer.write(read);
                    }
                    cut = true;
                } catch (SocketTimeoutException quiet) {
                    // Nothing yet: the next chunk, a second later.
                } catch (IOException reset) {
                    cut = true;
                }
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            String said = answer.toString(StandardCharsets.US_ASCII);
            assertTrue(cut, "still open after " + TRICKLED_BYTES + " chunks a second apart; answered: " + said);
            assertTrue(said.isEmpty() || said.startsWith("HTTP/1.1 408"), "answered: " + said);
            assertTrue(seconds >= 7, "cut after " + seconds + " s, before the body deadline; answered: " + said);
        }
    }

    @Test
    void aFloodFromOneAddressHoldsOnlyItsShareAndAnotherAddressIsServed() throws IOException {
        InetSocketAddress server = new InetSocketAddress(InetAddress.getLoopbackAddress(), RestAssured.port);
        List<SocketChannel> flood = new ArrayList<>();
        Set<SocketChannel> closedByServer = new HashSet<>();
        try {
            // As many slow bodies from 127.0.0.2 as the replica has connections: without a share they take them all.
            for (int i = 0; i < LIMIT; i++) {
                SocketChannel channel = SocketChannel.open();
                flood.add(channel);
                channel.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.2"), 0));
                channel.connect(server);
                channel.write(ByteBuffer.wrap((slowBodyHead() + "{").getBytes(StandardCharsets.US_ASCII)));
                channel.configureBlocking(false);
            }
            // Those past the share are closed as the server sees them (a sweep every 250 ms); the bodies' deadline (8 s
            // here) is far off.
            Eventually.await(
                    "all but " + SHARE + " of " + LIMIT + " connections from one address closed",
                    Duration.ofSeconds(3),
                    () -> {
                        for (SocketChannel channel : flood) {
                            if (!closedByServer.contains(channel) && isClosedByServer(channel)) {
                                closedByServer.add(channel);
                            }
                        }
                        return closedByServer.size() >= LIMIT - SHARE;
                    });
            // Another address is served meanwhile.
            Eventually.await("127.0.0.3 served beside the flood", Duration.ofSeconds(3), () -> health("127.0.0.3"));
        } finally {
            for (SocketChannel channel : flood) {
                channel.close();
            }
        }
        // Closed, the flood's connections give the address its share back.
        Eventually.await("127.0.0.2 served again", Duration.ofSeconds(10), () -> health("127.0.0.2"));
    }

    /** Whether {@code GET /v1/health} from {@code from} is answered 204. */
    private static boolean health(String from) {
        try (Socket socket = connect(from)) {
            socket.setSoTimeout(5_000);
            socket.getOutputStream()
                    .write("GET /v1/health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
                            .getBytes(StandardCharsets.US_ASCII));
            return new String(socket.getInputStream().readAllBytes(), StandardCharsets.US_ASCII)
                    .startsWith("HTTP/1.1 204");
        } catch (IOException e) {
            return false;
        }
    }

    /** Whether the server has closed (or reset) this connection; never waits. */
    private static boolean isClosedByServer(SocketChannel channel) {
        try {
            return channel.read(ByteBuffer.allocate(256)) < 0;
        } catch (IOException e) {
            return true;
        }
    }
}
