package io.pigeon.dispatch;

import io.pigeon.config.CheckedSettings;
import io.pigeon.config.SettingsCheck;
import io.pigeon.config.ValidSettings;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Subscription notifications.
 *
 * <p>The notifications of subscriptions, which the delivery engine (io.pigeon.dispatch) sends. Its own mapping, so
 * that the feature that reads these keys owns them; the keys are unchanged ({@code pigeon.notification.*}, env
 * {@code PIGEON_NOTIFICATION_*}).
 */
@ConfigMapping(prefix = "pigeon.notification")
@ValidSettings
public interface NotificationSettings extends CheckedSettings {

    /**
     * Zaqar's {@code [notification] require_confirmation}: a new webhook subscriber is sent a confirmation
     * request (signed with the signed-URL key) and notified only once it has confirmed. Off by default.
     */
    @WithDefault("false")
    boolean requireConfirmation();

    /** The notifications of {@code mailto:} subscribers. */
    Mail mail();

    interface Mail {
        /**
         * Whether {@code mailto:} subscribers are sent their notifications, through the SMTP server that the
         * {@code quarkus.mailer.*} settings name (host, port, TLS, credentials, and the sender,
         * {@code quarkus.mailer.from}, which must be set). Off: they are stored and never sent, as before, and
         * their subscriptions say so.
         */
        @WithDefault("false")
        boolean enabled();

        /**
         * Zaqar's {@code external_confirmation_url}: the page a confirmation mail links to (with the grant in its
         * query). With confirmation required and no such page, a {@code mailto:} subscriber is sent no
         * confirmation request (as in Zaqar), so it is never confirmed nor notified.
         */
        Optional<String> confirmationUrl();

        /**
         * Pigeon's own public base URL (e.g. {@code https://queues.example.com}), for the {@code Url} parameter of
         * a confirmation mail's link: the address of the confirm request (Zaqar's {@code WSGISubscribeURL}, taken
         * from its service catalogue). Unset: the parameter is empty.
         */
        Optional<String> publicUrl();

        /**
         * The domains a {@code mailto:} subscription's {@code options.from} may name (its address's part after
         * {@code @}, compared ignoring case; {@code *.example.com} stands for every subdomain of example.com, not
         * example.com itself). Unset: none, and the only {@code from} accepted is the deployment's own sender's
         * address ({@code quarkus.mailer.from}). Whatever the {@code from}, the SMTP envelope sender is always the
         * deployment's ({@code quarkus.mailer.bounce-address}, else the address of {@code quarkus.mailer.from}).
         */
        Optional<List<String>> allowedFromDomains();

        /**
         * Whether a {@code mailto:} subscriber must confirm (through the link of the confirmation mail) before it is
         * sent any notification, whatever {@code pigeon.notification.require-confirmation} says for webhooks. On by
         * default: otherwise any project could make Pigeon mail any address. With both off, mail goes out unasked.
         */
        @WithDefault("true")
        boolean requireConfirmation();

        /**
         * Mails (notifications and confirmation requests) one project's subscriptions start per minute on this
         * replica: a burst of this many, then one every minute divided by it. Mails past it wait, due when there
         * is room, never dropped, costing no attempt (as calls past the per-address rate do).
         */
        @WithDefault("60")
        @Min(1)
        @Max(60000)
        int maxPerProjectPerMinute();
    }

    @Override
    default List<String> problems() {
        List<String> problems = new ArrayList<>();
        SettingsCheck.url(problems, "pigeon.notification.mail.confirmation-url", mail().confirmationUrl());
        SettingsCheck.url(problems, "pigeon.notification.mail.public-url", mail().publicUrl());
        return problems;
    }
}
