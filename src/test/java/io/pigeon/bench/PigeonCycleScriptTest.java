package io.pigeon.bench;

import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The ratio benchmark's SQL ceiling binds every parameter of the stores' statements: a statement that takes a new
 * parameter breaks the script here, not in the middle of a benchmark run.
 */
class PigeonCycleScriptTest {

    private static final Pattern UNBOUND = Pattern.compile("\\$\\d");

    @ParameterizedTest
    @CsvSource({"v1,shared", "v2,shared", "v1,per-client", "v2,per-client"})
    void everyParameterOfTheCycleIsBound(String api, String layout) {
        String script = PigeonCycleScript.script(api, layout);
        assertFalse(UNBOUND.matcher(script).find(), () -> "a parameter left unbound in " + script);
    }
}
