package io.pigeon.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.core.JsonParseException;
import io.vertx.pgclient.PgException;
import io.vertx.sqlclient.ClosedConnectionException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.SocketException;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.CompletionException;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Which failures are the database being unreachable (503, worth a retry) and which are bugs (500): every way a
 * connection is lost is the former, whatever its message says, also when it comes wrapped.
 */
class DatabaseFailuresTest {

    static Stream<Arguments> failures() {
        return Stream.of(
                // What Netty's NIO transport fails a read with when the server's side resets: seen as a 500.
                Arguments.of(new IOException("Connection reset by peer"), true),
                Arguments.of(new IOException("Broken pipe"), true),
                Arguments.of(new IOException((String) null), true),
                Arguments.of(new ClosedChannelException(), true),
                Arguments.of(new SocketException("Connection reset"), true),
                Arguments.of(new ConnectException("Connection refused"), true),
                Arguments.of(ClosedConnectionException.INSTANCE, true),
                Arguments.of(new CompletionException(new IOException("Connection reset by peer")), true),
                Arguments.of(new RuntimeException("wrapped", new ClosedChannelException()), true),
                Arguments.of(pg("08006"), true),
                Arguments.of(pg("08003"), true),
                Arguments.of(pg("57P01"), true),
                Arguments.of(pg("57P02"), true),
                Arguments.of(pg("57P03"), true),
                Arguments.of(pg("53300"), true),
                Arguments.of(new CompletionException(pg("57P01")), true),
                // Bugs and refusals stay what they are.
                Arguments.of(pg("23505"), false),
                Arguments.of(pg("22P02"), false),
                Arguments.of(pg("42P01"), false),
                Arguments.of(new JsonParseException(null, "Unexpected character"), false),
                Arguments.of(new UncheckedIOException(new JsonParseException(null, "stored document")), false),
                Arguments.of(new IllegalStateException("Connection reset by peer"), false),
                Arguments.of(new NullPointerException(), false));
    }

    @ParameterizedTest(name = "{0} -> unavailable: {1}")
    @MethodSource("failures")
    void lostConnectionsAreUnavailabilityAndBugsAreNot(Throwable failure, boolean unavailable) {
        assertEquals(unavailable, DatabaseFailures.isUnavailable(failure));
    }

    private static PgException pg(String sqlState) {
        return new PgException("server said " + sqlState, "ERROR", sqlState, null);
    }
}
