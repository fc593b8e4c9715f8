package io.pigeon.mail;

import io.quarkus.test.junit.QuarkusTestProfile;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.util.Map;

/**
 * Mail on, through an SMTP server the tests start themselves on a free port of this machine ({@link #SMTP_PORT}),
 * with the shipped mail rules: confirmation required of {@code mailto:} subscribers (the default of
 * {@code pigeon.notification.mail.require-confirmation}; Zaqar's {@code require_confirmation} stays off), so that a
 * subscriber confirms through the link it is mailed, as a user would. A subscription's {@code from} may name
 * {@link #ALLOWED_DOMAIN} or a subdomain of {@link #ALLOWED_PARENT}; each project may start
 * {@link #MAILS_PER_MINUTE} mails a minute (a burst of that many, then one every 2 s), more than any test but the
 * rate's own sends in a burst. One profile (one Quarkus start) for every mail test.
 */
public class MailProfile implements QuarkusTestProfile {

    private static final String PORT_PROPERTY = "mail-test.smtp-port";

    /** Where the tests' SMTP server listens, chosen once before Quarkus starts. */
    public static final int SMTP_PORT = freePort();

    /** The configured sender, used when a subscription names none. */
    public static final String SENDER = "pigeon@example.test";

    /** A domain a subscription's {@code from} may name. */
    public static final String ALLOWED_DOMAIN = "example.org";

    /** A domain whose subdomains (not itself) a subscription's {@code from} may name. */
    public static final String ALLOWED_PARENT = "allowed.test";

    /** Mails one project may start per minute. */
    public static final int MAILS_PER_MINUTE = 30;

    /** The page a confirmation mail links to (Zaqar's external_confirmation_url). */
    public static final String CONFIRMATION_PAGE = "https://confirm.example.test/page";

    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.ofEntries(
                Map.entry("pigeon.notification.mail.enabled", "true"),
                Map.entry("pigeon.notification.mail.allowed-from-domains", ALLOWED_DOMAIN + ",*." + ALLOWED_PARENT),
                Map.entry("pigeon.notification.mail.max-per-project-per-minute", Integer.toString(MAILS_PER_MINUTE)),
                Map.entry("pigeon.notification.mail.confirmation-url", CONFIRMATION_PAGE),
                Map.entry("pigeon.notification.mail.public-url", "https://queues.example.test/"),
                Map.entry("quarkus.mailer.mock", "false"),
                Map.entry("quarkus.mailer.host", "127.0.0.1"),
                Map.entry("quarkus.mailer.port", Integer.toString(SMTP_PORT)),
                Map.entry("quarkus.mailer.start-tls", "DISABLED"),
                Map.entry("quarkus.mailer.from", "Pigeon <" + SENDER + ">"));
    }

    /**
     * A free port, the same in every class loader of this JVM (the profile and the test class are loaded by JUnit's and
     * by Quarkus's): the first to ask chooses it and leaves it in a system property for the others.
     */
    private static synchronized int freePort() {
        String chosen = System.getProperty(PORT_PROPERTY);
        if (chosen != null) {
            return Integer.parseInt(chosen);
        }
        try (ServerSocket socket = new ServerSocket(0)) {
            System.setProperty(PORT_PROPERTY, Integer.toString(socket.getLocalPort()));
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
