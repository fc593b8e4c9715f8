package io.pigeon.api.v2;

import io.pigeon.testing.SharedPorts;
import io.quarkus.test.junit.QuarkusTestProfile;
import java.util.HashMap;
import java.util.Map;

/**
 * What a deployment opts into, on at once, so that the classes that check it share one Quarkus start. None of these
 * touches what another of its classes does:
 *
 * <ul>
 *   <li>Zaqar's {@code require_confirmation} ({@code pigeon.notification.require-confirmation},
 *       RequiredConfirmationTest): it acts on webhook subscriptions, which no other class of this profile makes but
 *       TracingJourneyTest, which confirms its one ({@code mailto:} subscribers must confirm either way, see below).
 *   <li>Zaqar's {@code message_delete_with_claim_id} ({@code pigeon.message-delete-with-claim-id},
 *       DeleteWithClaimIdsTest): it acts on bulk deletes by id, which no other class makes.
 *   <li>Mail (MailNotificationTest), through an SMTP server the test starts itself on a free port of this machine
 *       ({@link #SMTP_PORT}), with the shipped mail rules: confirmation required of {@code mailto:} subscribers (the
 *       default of {@code pigeon.notification.mail.require-confirmation}), so that a subscriber confirms through the
 *       link it is mailed, as a user would. A subscription's {@code from} may name {@link #ALLOWED_DOMAIN} or a
 *       subdomain of {@link #ALLOWED_PARENT}; each project may start {@link #MAILS_PER_MINUTE} mails a minute (a burst
 *       of that many, then one every 2 s), more than any test but the rate's own sends in a burst. No other class
 *       subscribes a {@code mailto:} address.
 *   <li>Small bounds on websocket messages still arriving (ZaqarSocketArrivingBytesTest): 2,000,000 bytes over the
 *       replica as counted (twice the bytes), 3 s to finish a message, a ping every second. No other class of this
 *       profile opens a socket but TracingTest, for one small frame.
 *   <li>Tracing (TracingTest, TracingJourneyTest): spans exported over OTLP/HTTP to a collector the tests start on a
 *       free port ({@link #OTLP_PORT}), every second. The other classes' requests are traced too, which changes none
 *       of their answers (and their spans go nowhere while no tracing test runs).
 *   <li>A batching window of 10 ms ({@code pigeon.coalescing.window}, WindowedStatementsTest): a request waits for
 *       company only after a statement of its kind was shared, which the other classes' requests, one at a time,
 *       seldom are (and then wait at most 10 ms once).
 * </ul>
 */
public class ZaqarOptInsProfile implements QuarkusTestProfile {

    /** Where the mail tests' SMTP server listens, chosen once before Quarkus starts. */
    public static final int SMTP_PORT = SharedPorts.chosen("mail-test.smtp-port");

    /** Where the tracing tests' OTLP collector listens (io.pigeon.testing.OtlpCollector), chosen likewise. */
    public static final int OTLP_PORT = SharedPorts.chosen("tracing-test.otlp-port");

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
        Map<String, String> overrides = new HashMap<>();
        overrides.put("pigeon.notification.require-confirmation", "true");
        overrides.put("pigeon.message-delete-with-claim-id", "true");
        overrides.put("pigeon.notification.mail.enabled", "true");
        overrides.put("pigeon.notification.mail.allowed-from-domains", ALLOWED_DOMAIN + ",*." + ALLOWED_PARENT);
        overrides.put("pigeon.notification.mail.max-per-project-per-minute", Integer.toString(MAILS_PER_MINUTE));
        overrides.put("pigeon.notification.mail.confirmation-url", CONFIRMATION_PAGE);
        overrides.put("pigeon.notification.mail.public-url", "https://queues.example.test/");
        overrides.put("quarkus.mailer.mock", "false");
        overrides.put("quarkus.mailer.host", "127.0.0.1");
        overrides.put("quarkus.mailer.port", Integer.toString(SMTP_PORT));
        overrides.put("quarkus.mailer.start-tls", "DISABLED");
        overrides.put("quarkus.mailer.from", "Pigeon <" + SENDER + ">");
        overrides.put("pigeon.websocket.max-arriving-bytes", "2000000");
        overrides.put("pigeon.websocket.message-arrival-timeout", "3s");
        overrides.put("pigeon.websocket.ping-interval", "1s");
        overrides.put("pigeon.coalescing.window", "0.01s");
        overrides.put("quarkus.otel.exporter.otlp.traces.endpoint", "http://127.0.0.1:" + OTLP_PORT);
        overrides.put("quarkus.otel.exporter.otlp.traces.protocol", "http/protobuf");
        overrides.put("quarkus.otel.bsp.schedule.delay", "1s");
        return overrides;
    }
}
