package io.pigeon.api.console;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.rules.Rejection;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The console's own reading of a form: what a browser sends is read back exactly; anything else is a 400. */
class ConsoleFormBodyTest {

    private static final Set<String> FIELDS = Set.of("csrf", "body", "ttl");

    @Test
    void aBrowsersFormIsReadBackExactly() {
        ConsoleFormBody form = ConsoleFormBody.parse(
                "csrf=abc&body=%7B%22a%22%3A+%22%3Cscript%3E%C3%A9%F0%9F%98%80%22%7D&ttl=&submit=Post", FIELDS);
        assertEquals("abc", form.get("csrf"));
        assertEquals("{\"a\": \"<script>é😀\"}", form.get("body"));
        assertEquals("", form.get("ttl"));
        assertNull(form.get("submit"), "a field of no interest is dropped");
        assertNull(ConsoleFormBody.parse(null, FIELDS).get("body"));
        assertEquals("x", ConsoleFormBody.parse("body=x&&", FIELDS).get("body"));
    }

    @Test
    void aLongFieldIsKeptWhole() {
        String value = "a".repeat(300_000);
        assertEquals(value, ConsoleFormBody.parse("body=" + value, FIELDS).get("body"));
    }

    @Test
    void malformedFormsAreRefusedNamingWhatIsWrong() {
        assertRefused("body=%ZZ", "\"body\"", "malformed escape");
        assertRefused("body=%4", "\"body\"", "malformed escape");
        assertRefused("bo%zdy=1", "field name", "malformed escape");
        assertRefused("body=%C3%28", "\"body\"", "not UTF-8");
        assertRefused("body=é", "\"body\"", "not percent-encoded");
        assertRefused("body=1&body=2", "\"body\"", "more than once");
        assertRefused("x=1&".repeat(ConsoleFormBody.MAX_FIELDS + 1), "more than 16 fields", "");
    }

    private static void assertRefused(String raw, String names, String says) {
        Rejection refused = assertThrows(Rejection.class, () -> ConsoleFormBody.parse(raw, FIELDS));
        assertEquals(Rejection.Reason.INVALID_BODY, refused.reason());
        assertTrue(refused.getMessage().contains(names) && refused.getMessage().contains(says), refused.getMessage());
    }

    @Test
    void onlyABrowsersFormTypeIsRead() {
        ConsoleFormBody.requireFormType("application/x-www-form-urlencoded");
        ConsoleFormBody.requireFormType("Application/X-WWW-Form-Urlencoded; charset=UTF-8");
        for (String other : new String[] {
            null,
            "",
            "text/plain",
            "application/json",
            "multipart/form-data; boundary=x",
            "application/x-www-form-urlencodedX"
        }) {
            Rejection refused = assertThrows(Rejection.class, () -> ConsoleFormBody.requireFormType(other));
            assertTrue(refused.getMessage().contains("application/x-www-form-urlencoded"), refused.getMessage());
        }
    }
}
