package io.pigeon.storage;

import com.fasterxml.jackson.core.JacksonException;
import io.smallrye.mutiny.Uni;
import io.vertx.pgclient.PgException;
import io.vertx.sqlclient.ClosedConnectionException;
import java.io.IOException;
import java.net.ConnectException;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;

/** Tells a database outage (answered 503, worth a retry) from a bug (answered 500). */
public final class DatabaseFailures {

    private DatabaseFailures() {}

    /**
     * A lost or refused database connection, a server going away or out of resources, a timeout: by the failure's
     * type and its causes (SQLSTATE for the server's own), never by its message. A connection's I/O failures come as
     * any {@link IOException}: with Netty's NIO transport a reset connection is a plain
     * {@code IOException("Connection reset by peer")}, a closed one a {@link java.nio.channels.ClosedChannelException}.
     * Jackson's exceptions are IOExceptions too, but a document Pigeon could not read or write is a bug, not an outage.
     */
    public static boolean isUnavailable(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof ConnectException
                    // A server stopping resets the connections of the statements it was running.
                    || (t instanceof IOException && !(t instanceof JacksonException))
                    || t instanceof ClosedConnectionException
                    || t instanceof TimeoutException
                    || t instanceof io.smallrye.mutiny.TimeoutException) {
                return true;
            }
            if (t instanceof PgException pg && pg.getSqlState() != null) {
                String state = pg.getSqlState();
                // 08: connection exceptions; 57P: operator intervention (shutdown, restart); 53: out of resources.
                if (state.startsWith("08") || state.startsWith("57P") || state.startsWith("53")) {
                    return true;
                }
            }
        }
        return false;
    }

    /** How often a statement PostgreSQL aborted for a conflict with a concurrent one is run, in all. */
    static final int CONFLICT_ATTEMPTS = 3;

    /**
     * SQLSTATE 40P01 (deadlock detected) or 40001 (serialization failure): PostgreSQL aborted the statement to break a
     * conflict with a concurrent transaction (a request's, or the sweeper's). Every request is one autocommit statement,
     * so the aborted one changed nothing and running it again is safe.
     */
    public static boolean isAbortedByConflict(Throwable failure) {
        return hasSqlState(failure, state -> state.equals("40P01") || state.equals("40001"));
    }

    /**
     * The statement, run again (up to {@value #CONFLICT_ATTEMPTS} times in all) when PostgreSQL aborts it for a
     * conflict: for statements that lock rows of two tables, or several rows, in an order a concurrent statement may
     * take the other way round (a claim's row then its messages, while the sweeper holds one of them).
     */
    public static <T> Uni<T> retriedOnConflict(Uni<T> statement) {
        return statement
                .onFailure(DatabaseFailures::isAbortedByConflict)
                .retry()
                .atMost(CONFLICT_ATTEMPTS - 1);
    }

    /** SQLSTATE 23505: a unique constraint refused the row (a concurrent twin, or a duplicate). */
    public static boolean isUniqueViolation(Throwable failure) {
        return failure instanceof PgException pg && "23505".equals(pg.getSqlState());
    }

    /**
     * SQLSTATE 22003: a number beyond what the database holds (a stored document must convert to jsonb, whose numbers
     * have at most {@value #MAX_WHOLE_DIGITS} digits before the decimal point and {@value #MAX_FRACTION_DIGITS} after).
     */
    public static boolean isNumberOutOfRange(Throwable failure) {
        return hasSqlState(failure, "22003"::equals);
    }

    /** PostgreSQL's numeric: digits before the decimal point, and after it. */
    public static final int MAX_WHOLE_DIGITS = 131072;

    public static final int MAX_FRACTION_DIGITS = 16383;

    /** SQLSTATE class 22 (data exception): the database refused a value, e.g. a NUL character in jsonb. */
    public static boolean isRejectedValue(Throwable failure) {
        return hasSqlState(failure, state -> state.startsWith("22"));
    }

    /**
     * Why the database refused a value the client sent ({@link #isNumberOutOfRange}, {@link #isRejectedValue}), in the
     * words every edge answers it with; null for any other failure. The statement failed whole: nothing was stored.
     */
    public static String refusedValue(Throwable failure) {
        if (isNumberOutOfRange(failure)) {
            return "The document holds a number beyond what can be stored: at most " + MAX_WHOLE_DIGITS
                    + " digits before the decimal point and " + MAX_FRACTION_DIGITS + " after it.";
        }
        if (isRejectedValue(failure)) {
            return "The document holds a value that cannot be stored (for example a \\u0000 character in a string).";
        }
        return null;
    }

    /** Whether the failure, or one of its causes, is the server's error with a SQLSTATE that {@code state} accepts. */
    public static boolean hasSqlState(Throwable failure, Predicate<String> state) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof PgException pg && pg.getSqlState() != null && state.test(pg.getSqlState())) {
                return true;
            }
        }
        return false;
    }
}
