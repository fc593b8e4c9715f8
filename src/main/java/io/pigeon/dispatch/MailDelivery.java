package io.pigeon.dispatch;

import io.pigeon.encryption.MessageCipher;
import io.quarkus.mailer.Mail;
import io.quarkus.mailer.reactive.ReactiveMailer;
import io.quarkus.runtime.LaunchMode;
import io.quarkus.runtime.StartupEvent;
import io.smallrye.mutiny.Uni;
import io.vertx.ext.mail.MailMessage;
import io.vertx.ext.mail.SMTPException;
import io.vertx.mutiny.ext.mail.MailClient;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * Sends the mail of a taken group whose target is a {@code mailto:} subscriber, formatted as Zaqar's mail task does
 * ({@link ZaqarMail}), through the SMTP server of the {@code quarkus.mailer.*} settings (the reactive Vert.x mail client
 * Quarkus configures from them: the event loop never waits on it). A mail is a call like a webhook's: it holds a call
 * slot, ends within {@code pigeon.dispatch.call-timeout}, and its outcome is settled with the same retries, deadlines
 * and dead state.
 *
 * <p>The message is built here rather than by Quarkus's {@code Mail}, which always sends a {@code Cc:} header (empty
 * when there is no copy): a mail has the headers it needs and no others. Its {@code From} is the subscription's
 * {@code from} when {@link MailSenders} allows it, else the configured sender; its envelope sender ({@code MAIL FROM},
 * the {@code Return-Path} that bounces go to) is always the deployment's. Quarkus's mock mode
 * ({@code quarkus.mailer.mock}) and its {@code approved-recipients} are kept: a mocked mail goes to Quarkus's mailer,
 * which logs it; a recipient not approved is refused (dead at once, never sent).
 *
 * <p>What counts: the SMTP server accepted the mail, delivered. A 5xx answer to the recipient's address (no such
 * mailbox, domain refused) will not change: refused, the group goes to the dead state at once. Anything else (the
 * server down or refusing connections, a 4xx, a timeout, a 5xx to the sender or the data, which the operator may yet
 * fix) is retried. Two rates pace mails on this replica, as the per-address rate paces calls (a mail past one waits,
 * due when there is room, never dropped, costing no attempt): those of one project, at most
 * {@code pigeon.notification.mail.max-per-project-per-minute} (what a project can make Pigeon mail, whatever its
 * subscribers), and those to one recipient domain, at most {@code pigeon.dispatch.max-calls-per-host-per-second} a
 * second (the receivers; the SMTP server's own connections are bounded by {@code quarkus.mailer.max-pool-size}).
 */
@ApplicationScoped
public class MailDelivery {

    /** The dispatcher's category: one logger to turn up for the whole delivery engine. */
    private static final Logger LOG = Logger.getLogger(Dispatcher.class);

    private final ReactiveMailer mockMailer;
    private final MailClient smtp;
    private final MessageCipher cipher;
    private final MailSenders senders;
    private final boolean enabled;
    private final Optional<String> sender;
    private final boolean mock;
    private final List<Pattern> approvedRecipients;
    private final HostRates<String> domainRates;
    private final HostRates<String> projectRates;
    private final long callTimeoutMillis;

    public MailDelivery(
            ReactiveMailer mockMailer,
            MailClient smtp,
            MessageCipher cipher,
            MailSenders senders,
            NotificationSettings notificationSettings,
            DispatchSettings dispatchSettings,
            @ConfigProperty(name = "quarkus.mailer.from") Optional<String> sender,
            @ConfigProperty(name = "quarkus.mailer.mock") Optional<Boolean> mock,
            @ConfigProperty(name = "quarkus.mailer.approved-recipients") Optional<List<String>> approvedRecipients) {
        this.mockMailer = mockMailer;
        this.smtp = smtp;
        this.cipher = cipher;
        this.senders = senders;
        this.enabled = notificationSettings.mail().enabled();
        this.sender = sender.filter(from -> !from.isBlank());
        // Quarkus's own default: mock in dev and test mode, real sends in production.
        this.mock = mock.orElse(LaunchMode.current() != LaunchMode.NORMAL);
        // As Quarkus reads them: each a regular expression the whole address must match.
        this.approvedRecipients = approvedRecipients.orElse(List.of()).stream()
                .map(String::strip)
                .filter(pattern -> !pattern.isEmpty())
                .map(Pattern::compile)
                .toList();
        this.domainRates = new HostRates<>(dispatchSettings.maxCallsPerHostPerSecond(), System::nanoTime);
        this.projectRates = new HostRates<>(
                notificationSettings.mail().maxPerProjectPerMinute(),
                Duration.ofMinutes(1).toNanos(),
                "pigeon.notification.mail.max-per-project-per-minute",
                System::nanoTime);
        this.callTimeoutMillis = dispatchSettings.callTimeout().toMillis();
    }

    /** With mail on, a sender must be configured: every mail needs one, and a subscription's {@code from} is optional. */
    void check(@Observes StartupEvent started) {
        if (!enabled) {
            return;
        }
        if (sender.isEmpty()) {
            throw new IllegalStateException("pigeon.notification.mail.enabled is true but no sender is set: set "
                    + "quarkus.mailer.from (QUARKUS_MAILER_FROM) to the address mails are sent from");
        }
        if (mock) {
            LOG.warn("pigeon.notification.mail.enabled is true but quarkus.mailer.mock is on (the default in dev and "
                    + "test mode): mails are logged, not sent");
        }
    }

    /** The mail of {@code group}; never fails: every failure is an {@link DeliveryClient.Outcome}. */
    public Uni<DeliveryClient.Outcome> send(DispatchStore.TakenGroup group) {
        return Uni.createFrom()
                .deferred(() -> {
                    if (!enabled) {
                        // Stored while mail was on (or sent by another replica's choice): kept, retried by its policy.
                        return Uni.createFrom().item(DeliveryClient.Outcome.failed("mail is not configured"));
                    }
                    String body = new String(DeliveryClient.payloadOf(cipher, group), StandardCharsets.UTF_8);
                    ZaqarMail mail = ZaqarMail.of(group.target(), group.headersJson(), body);
                    if (mail == null) {
                        return Uni.createFrom().item(DeliveryClient.Outcome.refused("not a mail address"));
                    }
                    if (!approved(mail.to())) {
                        return Uni.createFrom()
                                .item(DeliveryClient.Outcome.refused(
                                        "recipient not approved (quarkus.mailer.approved-recipients)"));
                    }
                    long wait = projectRates.admit(group.project());
                    if (wait == 0) {
                        wait = domainRates.admit(mail.domain());
                    }
                    if (wait > 0) {
                        return Uni.createFrom().item(DeliveryClient.Outcome.deferred(wait));
                    }
                    // A from the rules no longer allow (stored earlier, or the list changed): the deployment's sender.
                    String from = mail.from() != null && senders.allowed(mail.from()) ? mail.from() : sender.get();
                    if (mock) {
                        Mail logged = Mail.withText(mail.to(), mail.subject(), mail.text())
                                .setFrom(from);
                        senders.envelopeSender().ifPresent(logged::setBounceAddress);
                        return mockMailer.send(logged).replaceWith(DeliveryClient.Outcome.DELIVERED);
                    }
                    MailMessage message = new MailMessage()
                            .setFrom(from)
                            .setTo(List.of(mail.to()))
                            .setSubject(mail.subject())
                            .setText(mail.text());
                    if (group.traceparent() != null) {
                        message.addHeader(DeliveryClient.TRACEPARENT_HEADER, group.traceparent());
                    }
                    senders.envelopeSender().ifPresent(message::setBounceAddress);
                    return smtp.sendMail(message).replaceWith(DeliveryClient.Outcome.DELIVERED);
                })
                .ifNoItem()
                .after(Duration.ofMillis(callTimeoutMillis))
                .failWith(DeliveryClient.CallTimedOut::new)
                .onFailure()
                .recoverWithItem(failure -> {
                    LOG.debugf("Group %d: mail failed: %s", group.id(), failure.toString());
                    return outcomeOf(failure);
                });
    }

    /** Whether {@code address} may be mailed: every address, unless {@code quarkus.mailer.approved-recipients} is set. */
    private boolean approved(String address) {
        return approvedRecipients.isEmpty()
                || approvedRecipients.stream()
                        .anyMatch(pattern -> pattern.matcher(address).matches());
    }

    /**
     * What a failed send means: refused for good when the server answered the recipient's address with a 5xx, else
     * retried. The error a tenant sees says only the kind of failure and the reply's class.
     */
    static DeliveryClient.Outcome outcomeOf(Throwable failure) {
        if (failure instanceof SMTPException smtp) {
            String kind = "mail " + (smtp.getReplyCode() / 100) + "xx";
            String message = smtp.getMessage() == null ? "" : smtp.getMessage();
            if (smtp.isPermanent() && message.startsWith("recipient address not accepted")) {
                return DeliveryClient.Outcome.refused(kind + ": recipient refused");
            }
            return DeliveryClient.Outcome.failed(kind);
        }
        return DeliveryClient.Outcome.failed(DeliveryClient.describe(failure));
    }
}
