package io.pigeon.dispatch;

import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Who a mail says it is from, and who answers for it. A tenant's {@code options.from} is written into the mail's
 * {@code From} header only when its domain is one the operator allowed ({@code
 * pigeon.notification.mail.allowed-from-domains}) or it is the deployment's own sender; anything else is refused when
 * a subscription is stored, and a {@code from} stored before the rule (or before the list changed) is replaced by the
 * deployment's sender when mailed. The SMTP envelope sender ({@code MAIL FROM}, which becomes {@code Return-Path} and
 * receives the bounces) is always the deployment's: without that, a project could make Pigeon send bounces, and the
 * blame of receivers' spam filters, to any domain it named.
 */
@ApplicationScoped
public class MailSenders {

    /** The setting that lists the domains a {@code from} may name. */
    public static final String ALLOWED_FROM_DOMAINS = "pigeon.notification.mail.allowed-from-domains";

    /** A domain name of the list: labels of letters, digits and inner hyphens, optionally after {@code *.}. */
    private static final Pattern DOMAIN =
            Pattern.compile("(\\*\\.)?[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*");

    private final List<String> domains;
    private final Optional<String> senderAddress;
    private final Optional<String> envelopeSender;

    public MailSenders(
            NotificationSettings notificationSettings,
            @ConfigProperty(name = "quarkus.mailer.from") Optional<String> sender,
            @ConfigProperty(name = "quarkus.mailer.bounce-address") Optional<String> bounceAddress) {
        this.domains = notificationSettings.mail().allowedFromDomains().orElse(List.of()).stream()
                .map(domain -> domain.strip().toLowerCase(Locale.ROOT))
                .filter(domain -> !domain.isEmpty())
                .toList();
        this.senderAddress = sender.filter(from -> !from.isBlank())
                .map(MailSenders::addressOf)
                .map(MailSenders::lowerDomain);
        this.envelopeSender = bounceAddress
                .filter(bounce -> !bounce.isBlank())
                .map(MailSenders::addressOf)
                .or(() -> senderAddress);
    }

    /** A domain of the list that is not a domain name stops the start, naming the setting. */
    void check(@Observes StartupEvent started) {
        for (String domain : domains) {
            if (!DOMAIN.matcher(domain).matches() || domain.length() > 253) {
                throw new IllegalStateException(ALLOWED_FROM_DOMAINS + " holds \"" + domain + "\", which is not a "
                        + "domain name (letters, digits, hyphens and dots, at most 253 characters), optionally after"
                        + " \"*.\"");
            }
        }
    }

    /**
     * Why {@code from} (a subscription's {@code options.from}, not empty) may not be a mail's sender, or null when it
     * may: it must be one bare address ({@code a@b}) whose domain is allowed, or the deployment's own sender's
     * address. A display name is refused: the domain check looks only at the address, and a name such as
     * {@code "ceo@bank.example" <queues@example.org>} would let a subscriber put any sender before a recipient's eyes.
     */
    public String refusal(String from) {
        if (!ZaqarMail.isOneAddress(from)) {
            return "options.from must be one mail address, a bare one (a@example.com).";
        }
        if (!addressOf(from).equals(from.strip()) || from.indexOf('"') >= 0) {
            return "options.from must be a bare mail address (a@example.com), without a display name.";
        }
        if (allowed(from)) {
            return null;
        }
        return "options.from may only name a domain of " + ALLOWED_FROM_DOMAINS + " ("
                + (domains.isEmpty() ? "none: only the deployment's own sender" : String.join(", ", domains))
                + "); leave it out to send from the deployment's sender.";
    }

    /** Whether {@code from}, one address, may be a mail's sender. */
    boolean allowed(String from) {
        String address = lowerDomain(addressOf(from));
        if (senderAddress.isPresent() && senderAddress.get().equals(address)) {
            return true;
        }
        String domain = address.substring(address.lastIndexOf('@') + 1);
        for (String allowed : domains) {
            if (allowed.startsWith("*.") ? domain.endsWith(allowed.substring(1)) : domain.equals(allowed)) {
                return true;
            }
        }
        return false;
    }

    /** The envelope sender of every mail: the bounce address, else the configured sender's address. */
    Optional<String> envelopeSender() {
        return envelopeSender;
    }

    /** The address of a sender written bare ({@code a@b}) or after a display name ({@code Name <a@b>}). */
    static String addressOf(String sender) {
        String text = sender.strip();
        int open = text.lastIndexOf('<');
        int close = text.lastIndexOf('>');
        return open >= 0 && close > open ? text.substring(open + 1, close).strip() : text;
    }

    /** An address with its domain in lower case (domains are compared ignoring case, local parts are not). */
    private static String lowerDomain(String address) {
        int at = address.lastIndexOf('@');
        return at < 0
                ? address
                : address.substring(0, at + 1) + address.substring(at + 1).toLowerCase(Locale.ROOT);
    }
}
