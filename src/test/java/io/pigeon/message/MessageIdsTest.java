package io.pigeon.message;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pigeon.ids.Uuids;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Wire ids without regular expressions: the same answers the patterns gave. */
class MessageIdsTest {

    @Test
    void formatsTwentyFourLowerCaseDigits() {
        assertEquals("000000000000000000000001", MessageIds.format(1));
        assertEquals("0000000000000000000abcde", MessageIds.format(0xabcde));
        assertEquals("000000007fffffffffffffff", MessageIds.format(Long.MAX_VALUE));
    }

    @Test
    void parsesOnlyHexOfAtMostTwentyFourDigits() {
        assertEquals(Optional.of(0xabcdeL), MessageIds.parse("0000000000000000000ABCDE"));
        assertEquals(Optional.of(1L), MessageIds.parse("1"));
        for (String bad : List.of(
                "",
                "0",
                "0000000000000000000000001",
                "12g4",
                "-1",
                "+1",
                " 1",
                "1 ",
                "\u0661",
                "\uff11",
                "ffffffffffffffffffffffff")) {
            assertEquals(Optional.empty(), MessageIds.parse(bad), bad);
        }
        assertEquals(Optional.empty(), MessageIds.parse(null));
        assertArrayEquals(new long[] {1, 2}, MessageIds.parseAll(List.of("1", "x", "2", "")));
    }

    @Test
    void clientIdsInEveryFormZaqarTakes() {
        UUID id = UUID.fromString("3381af92-2b9e-11e3-b191-71861300734c");
        for (String good : List.of(
                "3381af92-2b9e-11e3-b191-71861300734c",
                "3381af922b9e11e3b19171861300734c",
                "{3381AF92-2B9E-11E3-B191-71861300734C}",
                "urn:uuid:3381af92-2b9e-11e3-b191-71861300734c")) {
            assertEquals(Optional.of(id), Uuids.parseLenient(good), good);
        }
        for (String bad : List.of(
                "",
                "3381af92",
                "3381af922b9e11e3b19171861300734",
                "3381af922b9e11e3b19171861300734c0",
                "3381af922b9e11e3b19171861300734g",
                "3381af922b9e11e3b1917186130073\u0664c")) {
            assertEquals(Optional.empty(), Uuids.parseLenient(bad), bad);
        }
    }
}
