package io.pigeon.testing;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Assertions;

/** Waits for something asynchronous (a delivery) to be seen, failing with a message when it never is. */
public final class Eventually {

    private Eventually() {}

    public static void await(String what, Duration within, BooleanSupplier condition) {
        long deadline = System.nanoTime() + within.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                Assertions.fail("Not seen within " + within + ": " + what);
            }
            try {
                Thread.sleep(25);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                Assertions.fail("Interrupted while waiting for: " + what);
            }
        }
    }

    /** Lets {@code duration} pass, to show that something does not happen in it. */
    public static void pause(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
