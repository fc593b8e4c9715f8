package io.pigeon.api.read;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** RFC 7240's {@code Prefer: wait=N} as a claim or pop reads it, capped at 20 s. */
class WaitReaderTest {

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            quoteCharacter = '`',
            nullValues = "none",
            value = {
                "wait=3 | 3",
                "WAIT=3 | 3",
                "wait=\"3\" | 3",
                "respond-async, wait=5 | 5",
                "wait=3; foo=bar | 3",
                "wait=100 | 20",
                "wait=0 | 0",
                "wait=00000000000000000000000000000000000003 | 3",
                "wait=000 | 0",
                "wait=99999999999999999999 | 20",
                "wait=-1 | none",
                "wait=3.5 | none",
                "wait=+5 | none",
                "wait= | none",
                "respond-async | none"
            })
    void preferReadsAsRfc7240Asks(String prefer, Integer seconds) {
        assertEquals(seconds, WaitReader.fromPrefer(prefer, 20));
    }
}
