package io.pigeon.api.console;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.tenancy.AuthSettings.Mode;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * When the console is served: in OIDC mode only with a session secret of 32 characters or more, else it stays off (its
 * pages answer 404, and the start says why) while the API runs. Plain JUnit; ConsoleOidcHttpTest and
 * ConsoleBrowserTest see the console served, and the profiles that turn it off see the 404.
 */
class ConsoleSignInConfigurationTest {

    @Test
    void oidcModeServesTheConsoleOnlyWithASecretOf32Characters() {
        for (Optional<String> secret :
                new Optional[] {Optional.empty(), Optional.of(""), Optional.of("x".repeat(31))}) {
            Optional<String> off = ConsoleSignIn.offBecause(Mode.OIDC, true, secret);
            assertTrue(off.isPresent() && off.get().contains("PIGEON_CONSOLE_SESSION_SECRET"), off.toString());
        }
        assertEquals(Optional.empty(), ConsoleSignIn.offBecause(Mode.OIDC, true, Optional.of("x".repeat(32))));
    }

    @Test
    void theConsoleTurnedOffIsOffAndAuthenticationOffNeedsNoSecret() {
        assertTrue(ConsoleSignIn.offBecause(Mode.OIDC, false, Optional.of("x".repeat(32)))
                .orElseThrow()
                .contains("pigeon.console.enabled=false"));
        assertEquals(Optional.empty(), ConsoleSignIn.offBecause(Mode.NONE, true, Optional.empty()));
    }
}
