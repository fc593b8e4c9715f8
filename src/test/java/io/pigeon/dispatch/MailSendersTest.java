package io.pigeon.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.testing.TestConfig;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Which {@code options.from} a mail may carry, and who its envelope sender is, under the settings an operator writes
 * (read by SmallRye Config as at start); and a list that is not domain names stops the start, naming the setting.
 */
class MailSendersTest {

    private static MailSenders senders(String domains, String from, String bounce) {
        return new MailSenders(
                TestConfig.settings(
                        NotificationSettings.class,
                        domains == null ? Map.of() : Map.of(MailSenders.ALLOWED_FROM_DOMAINS, domains)),
                Optional.ofNullable(from),
                Optional.ofNullable(bounce));
    }

    @Test
    void withNoListOnlyTheDeploymentsOwnSenderIsAllowed() {
        MailSenders senders = senders(null, "Pigeon <pigeon@Example.test>", null);
        assertTrue(senders.allowed("pigeon@example.test"));
        assertTrue(senders.allowed("Someone <pigeon@EXAMPLE.TEST>"));
        assertFalse(senders.allowed("other@example.test"), "the sender's address, not its domain");
        assertFalse(senders.allowed("ceo@bank.example"));
        assertTrue(senders.refusal("ceo@bank.example").contains("none: only the deployment's own sender"));
        assertEquals(Optional.of("pigeon@example.test"), senders.envelopeSender());
    }

    @Test
    void aListAllowsItsDomainsAndTheSubdomainsOfItsWildcards() {
        MailSenders senders = senders(" Example.ORG , *.allowed.test", "pigeon@example.test", "bounces@example.test");
        assertNull(senders.refusal("queues@example.org"));
        assertNull(senders.refusal("queues@EXAMPLE.org"));
        // Only a bare address: a display name could show a recipient any sender.
        assertTrue(senders.refusal("Queues <queues@example.org>").contains("without a display name"));
        assertTrue(senders.refusal("\"ceo@bank.example\" <queues@example.org>").contains("without a display name"));
        assertTrue(senders.refusal("<queues@example.org>").contains("without a display name"));
        assertNull(senders.refusal("q@a.allowed.test"));
        assertNull(senders.refusal("q@b.a.allowed.test"));
        assertTrue(senders.refusal("q@allowed.test").contains(MailSenders.ALLOWED_FROM_DOMAINS));
        assertTrue(senders.refusal("q@sub.example.org").contains("example.org, *.allowed.test"));
        assertTrue(senders.refusal("q@evilallowed.test").contains(MailSenders.ALLOWED_FROM_DOMAINS));
        assertTrue(senders.refusal("q@example.org.evil.test").contains(MailSenders.ALLOWED_FROM_DOMAINS));
        assertTrue(senders.refusal("q@example.org, v@victim.test").contains("one mail address"));
        // The bounce address is the envelope sender when it is set.
        assertEquals(Optional.of("bounces@example.test"), senders.envelopeSender());
    }

    @ParameterizedTest
    @ValueSource(strings = {"exa mple.com", "*.", "a..b", "http://example.com", "-a.com", "a@b.com", "*.*.com"})
    void aListThatIsNotDomainNamesStopsTheStart(String domain) {
        IllegalStateException refused =
                assertThrows(IllegalStateException.class, () -> senders(domain, "pigeon@example.test", null)
                        .check(null));
        assertTrue(refused.getMessage().startsWith(MailSenders.ALLOWED_FROM_DOMAINS), refused.getMessage());
    }
}
