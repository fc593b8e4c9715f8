package io.pigeon.api.v2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pigeon.api.Rejections;
import io.pigeon.api.read.MetadataPatchReader;
import io.pigeon.rules.Rejection;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** v2 metadata patches: what each operation does, and that a bad patch changes nothing (it is refused whole). */
class MetadataPatchTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Set<String> RESERVED = Set.of("_default_message_ttl");

    private static ObjectNode object(String json) throws Exception {
        return (ObjectNode) JSON.readTree(json);
    }

    @ParameterizedTest(name = "{1} on {0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "{}                    | [{\"op\": \"add\", \"path\": \"/metadata/a\", \"value\": 1}]                     | {\"a\": 1}",
                "{\"a\": 1}            | [{\"op\": \"add\", \"path\": \"/metadata/a\", \"value\": [2]}]                   | {\"a\": [2]}",
                "{\"a\": 1}            | [{\"op\": \"replace\", \"path\": \"/metadata/a\", \"value\": {\"b\": null}}]       | {\"a\": {\"b\": null}}",
                "{\"a\": 1, \"b\": 2}  | [{\"op\": \"remove\", \"path\": \"/metadata/a\"}]                                | {\"b\": 2}",
                // A reserved attribute always has a value: replacing or removing it when unset is allowed.
                "{}                    | [{\"op\": \"replace\", \"path\": \"/metadata/_default_message_ttl\", \"value\": 60}] | {\"_default_message_ttl\": 60}",
                "{}                    | [{\"op\": \"remove\", \"path\": \"/metadata/_default_message_ttl\"}]              | {}",
                "{\"a\": 1}            | [{\"op\": \"remove\", \"path\": \"/metadata/a\"}, {\"op\": \"add\", \"path\": \"/metadata/a\", \"value\": 3}] | {\"a\": 3}"
            })
    void operationsApplyInOrder(String metadata, String patch, String expected) throws Exception {
        ObjectNode original = object(metadata);
        assertEquals(
                object(expected), MetadataPatchReader.read(JSON.readTree(patch)).applyTo(original, RESERVED));
        assertEquals(object(metadata), original, "the original is not changed");
    }

    @ParameterizedTest(name = "{1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "{}         | []                                                                    | 400 | non-empty JSON array",
                "{}         | {}                                                                    | 400 | non-empty JSON array",
                "{}         | [1]                                                                   | 400 | JSON object",
                "{}         | [{\"op\": \"move\", \"path\": \"/metadata/a\"}]                      | 400 | Invalid operation \"move\"",
                "{}         | [{\"op\": \"add\", \"path\": \"/a\", \"value\": 1}]                  | 400 | Invalid path \"/a\"",
                "{}         | [{\"op\": \"add\", \"path\": \"/metadata/\", \"value\": 1}]          | 400 | Invalid path",
                "{}         | [{\"op\": \"add\", \"path\": \"/metadata/a/b\", \"value\": 1}]       | 400 | Invalid path",
                "{}         | [{\"op\": \"add\", \"path\": \"/metadata/a\"}]                       | 400 | needs a \"value\"",
                "{}         | [{\"op\": \"replace\", \"path\": \"/metadata/a\", \"value\": 1}]     | 409 | Can't replace non-existent object a",
                "{}         | [{\"op\": \"remove\", \"path\": \"/metadata/a\"}]                    | 409 | Can't remove non-existent object a",
                "{\"x\": 1} | [{\"op\": \"add\", \"path\": \"/metadata/ok\", \"value\": 1}, {\"op\": \"remove\", \"path\": \"/metadata/absent\"}] | 409 | absent"
            })
    void badPatchesAreRefusedWhole(String metadata, String patch, int status, String message) throws Exception {
        ObjectNode original = object(metadata);
        RuntimeException refused =
                assertThrows(RuntimeException.class, () -> MetadataPatchReader.read(JSON.readTree(patch))
                        .applyTo(original, RESERVED));
        assertEquals(status, Rejections.answer(((Rejection) refused).reason()).status(), refused.getMessage());
        assertTrue(refused.getMessage().contains(message), refused.getMessage());
        assertEquals(object(metadata), original, "nothing applied");
    }
}
