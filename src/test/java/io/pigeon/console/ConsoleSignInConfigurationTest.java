package io.pigeon.console;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.config.PigeonConfig.Auth.Mode;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The start-up check of the console's sign-in: no console in OIDC mode without a session secret. Plain JUnit. */
class ConsoleSignInConfigurationTest {

    @Test
    void oidcModeWithTheConsoleOnNeedsASecretOf32Characters() {
        for (Optional<String> secret :
                new Optional[] {Optional.empty(), Optional.of(""), Optional.of("x".repeat(31))}) {
            IllegalStateException refused = assertThrows(
                    IllegalStateException.class, () -> ConsoleSignIn.checkConfiguration(Mode.OIDC, true, secret));
            assertTrue(refused.getMessage().contains("PIGEON_CONSOLE_SESSION_SECRET"), refused.getMessage());
        }
        assertDoesNotThrow(() -> ConsoleSignIn.checkConfiguration(Mode.OIDC, true, Optional.of("x".repeat(32))));
    }

    @Test
    void noSecretIsNeededWithTheConsoleOffOrAuthenticationOff() {
        assertDoesNotThrow(() -> ConsoleSignIn.checkConfiguration(Mode.OIDC, false, Optional.empty()));
        assertDoesNotThrow(() -> ConsoleSignIn.checkConfiguration(Mode.NONE, true, Optional.empty()));
    }
}
