package io.pigeon.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.vertx.ext.mail.SMTPException;
import java.net.ConnectException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** A mail as Zaqar 15's mail task writes it, and what an SMTP failure means for its group. */
class ZaqarMailTest {

    @Test
    void theNotificationIsWrittenInZaqarsOrderAsciiOnly() {
        String stored = "{\"body\" : {\"b\": [1, 2.0, \"\\u00e9\\n\\\"\", null, true], \"a\": {}}, \"ttl\" : 60, "
                + "\"queue_name\" : \"q\", \"Message_Type\" : \"Notification\"}";
        assertEquals(
                "{\"ttl\": 60, \"body\": {\"b\": [1, 2.0, \"\\u00e9\\n\\\"\", null, true], \"a\": {}}, "
                        + "\"Message_Type\": \"Notification\", \"queue_name\": \"q\"}",
                ZaqarMail.notificationText(stored));
    }

    /** DEL (0x7f) is outside printable ASCII for Python's json.dumps too: {@code json.dumps("a\x7fb")} is "a\u007fb". */
    @Test
    void delIsEscapedAsPythonEscapesIt() {
        assertEquals(
                "{\"ttl\": 60, \"body\": \"a\\u007fb\", \"Message_Type\": \"Notification\", \"queue_name\": \"q\"}",
                ZaqarMail.notificationText("{\"ttl\": 60, \"body\": \"a\u007fb\", \"Message_Type\": \"Notification\", "
                        + "\"queue_name\": \"q\"}"));
    }

    @Test
    void theSubjectOfTheAddressWinsOverTheOptionAndTheOptionsSenderIsUsed() {
        ZaqarMail mail = ZaqarMail.of(
                "mailto:ops@example.com?Subject=Queue+news%21&cc=x@example.com",
                "{\"subject\": \"option\", \"from\": \"Queues <queues@example.org>\"}",
                "{\"body\": 1, \"ttl\": 60, \"queue_name\": \"q\", \"Message_Type\": \"Notification\"}");
        assertEquals("ops@example.com", mail.to());
        assertEquals("Queue news!", mail.subject());
        assertEquals("Queues <queues@example.org>", mail.from());
        assertEquals("example.com", mail.domain());
    }

    @Test
    void aSenderOrSubjectThatWouldBreakTheHeaderIsNotUsedAsItIs() {
        ZaqarMail mail = ZaqarMail.of(
                "mailto:ops@Example.COM",
                "{\"subject\": \"a\\r\\nBcc: victim@example.com\", \"from\": \"x@example.org\\r\\nBcc: y@example.com\"}",
                "{}");
        assertNull(mail.from(), "the configured sender instead");
        assertFalse(mail.subject().contains("\n"));
        assertEquals("example.com", mail.domain());
        assertEquals("", ZaqarMail.of("mailto:ops@example.com", null, "{}").subject());
        assertNull(ZaqarMail.of("mailto:nobody", null, "{}"));
    }

    /** A sender the mailer could not send from, or that names more than one address, gives way to the configured one. */
    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            quoteCharacter = '`',
            value = {
                "queues@example.org | true",
                "Queues <queues@example.org> | true",
                "`\"Queues, Inc.\" <queues@example.org>` | true",
                "`\"x\" <me@x.com>, victim6@evil.com` | false",
                "me@x.com>\u000bRCPT | false",
                "a@b@c | false",
                "me@x.com victim@evil.com | false",
                "<me@x.com | false",
                "me\u0085@x.com | false",
                "me@x.com\u2028 | false"
            })
    void onlyASenderOfOneAddressIsUsed(String from, boolean used) throws Exception {
        String headers = new ObjectMapper().writeValueAsString(Map.of("from", unescape(from)));
        ZaqarMail mail = ZaqarMail.of("mailto:ops@example.com", headers, "{}");
        assertEquals(used ? unescape(from) : null, mail.from(), from);
    }

    /** The CSV cases write control characters as Java escapes. */
    private static String unescape(String text) {
        return text.replace("\\u000b", "\u000b").replace("\\u0085", "\u0085").replace("\\u2028", "\u2028");
    }

    @Test
    void aConfirmationKeepsItsTopicAndText() {
        ZaqarMail mail = ZaqarMail.of(
                "mailto:ops@example.com?subject=ignored", "{\"topic\": \"Confirm\"}", "Visit this link: https://x");
        assertEquals("Confirm", mail.subject());
        assertEquals("Visit this link: https://x", mail.text());
        assertNull(mail.from());
    }

    @Test
    void onlyARecipientRefusedForGoodEndsTheGroup() {
        DeliveryClient.Outcome unknownUser = MailDelivery.outcomeOf(
                new SMTPException("recipient address not accepted", 550, List.of("550 5.1.1 no such user"), true));
        assertFalse(unknownUser.retryable());
        assertTrue(unknownUser.error().startsWith("mail 5xx"), unknownUser.error());
        DeliveryClient.Outcome mailboxBusy = MailDelivery.outcomeOf(
                new SMTPException("recipient address not accepted", 450, List.of("450 mailbox busy"), false));
        assertTrue(mailboxBusy.retryable());
        DeliveryClient.Outcome badCredentials = MailDelivery.outcomeOf(
                new SMTPException("authentication failed", 535, List.of("535 bad credentials"), false));
        assertTrue(badCredentials.retryable(), "the operator may yet fix it");
        DeliveryClient.Outcome down = MailDelivery.outcomeOf(new ConnectException("Connection refused"));
        assertTrue(down.retryable());
        assertEquals("connection failed", down.error());
    }
}
