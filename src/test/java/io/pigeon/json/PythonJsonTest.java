package io.pigeon.json;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Python's {@code json.dumps}; each expected value was written by Python 3.11 from the same document. */
class PythonJsonTest {

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "1e16 | 1e+16",
                "1e15 | 1000000000000000.0",
                "0.0001 | 0.0001",
                "1e-05 | 1e-05",
                "123.456 | 123.456",
                "-2.5e-7 | -2.5e-07",
                "1.5e300 | 1.5e+300",
                "100 | 100.0",
                "0.1 | 0.1",
                "1.5 | 1.5",
                "0.00001 | 1e-05",
                "-2.25 | -2.25",
                "123456789012345.6 | 123456789012345.6",
                "-0.0 | -0.0"
            })
    void floatsAreWrittenAsPythonReprWritesThem(double value, String python) {
        assertEquals(python, PythonJson.pythonFloat(value));
    }

    /** DEL (0x7f) is escaped too: Python keeps only 0x20 to 0x7e as they are. */
    @Test
    void documentsAreWrittenAsJsonDumpsWritesThem() throws Exception {
        String document = "{\"b\": [1, 2.0, -0.0, \"\u00e9\u007f\\n\\\"\u2028\", null, true], \"a\": {}, \"~\": \" \"}";
        assertEquals(
                "{\"b\": [1, 2.0, -0.0, \"\\u00e9\\u007f\\n\\\"\\u2028\", null, true], \"a\": {}, \"~\": \" \"}",
                PythonJson.dumps(new ObjectMapper().readTree(document)));
    }
}
