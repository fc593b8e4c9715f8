package io.pigeon.ids;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The UUID forms Client-ID accepts (Python's uuid.UUID, as Zaqar does) and the canonical form ids use. */
class UuidsTest {

    private static final UUID ID = UUID.fromString("3381af92-2b9e-11e3-b191-71861300734c");

    @ParameterizedTest(name = "lenient: {0}")
    @ValueSource(
            strings = {
                "3381af92-2b9e-11e3-b191-71861300734c",
                "3381af922b9e11e3b19171861300734c",
                "3381AF92-2B9E-11E3-B191-71861300734C",
                "{3381af92-2b9e-11e3-b191-71861300734c}",
                "urn:uuid:3381af92-2b9e-11e3-b191-71861300734c",
                "3381af922b9e-11e3-b191-71861300734c",
                "  3381af92-2b9e-11e3-b191-71861300734c  "
            })
    void acceptedForms(String value) {
        assertEquals(Optional.of(ID), Uuids.parseLenient(value));
    }

    @ParameterizedTest(name = "refused: [{0}]")
    @ValueSource(
            strings = {
                "",
                "not-a-uuid",
                "3381af92-2b9e-11e3-b191-71861300734",
                "3381af922b9e11e3b19171861300734cc",
                "zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz",
                "{3381af92-2b9e-11e3-b191-71861300734c",
                "٣٣٨١af922b9e11e3b19171861300734c",
                "3381af92-2b9e-11e3-b191-71861300734c-extra",
                "{}"
            })
    void refusedForms(String value) {
        assertTrue(Uuids.parseLenient(value).isEmpty(), value);
    }

    @ParameterizedTest(name = "canonical: {0} -> {1}")
    @CsvSource({
        "3381af92-2b9e-11e3-b191-71861300734c, true",
        "3381AF92-2B9E-11E3-B191-71861300734C, true",
        "3381af922b9e11e3b19171861300734c, false",
        "{3381af92-2b9e-11e3-b191-71861300734c}, false",
        "3381af92-2b9e11e3-b191-71861300734c, false"
    })
    void canonicalOnly(String value, boolean accepted) {
        assertEquals(accepted, Uuids.parseCanonical(value).isPresent(), value);
    }
}
