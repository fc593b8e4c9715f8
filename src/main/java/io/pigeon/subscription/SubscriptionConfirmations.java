package io.pigeon.subscription;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pigeon.config.PigeonConfig;
import io.pigeon.dispatch.DispatchAddress;
import io.pigeon.dispatch.DispatchService;
import io.pigeon.dispatch.NotificationSettings;
import io.pigeon.json.StrictJson;
import io.pigeon.message.MessageIds;
import io.pigeon.queue.QueueName;
import io.pigeon.tenancy.SignedUrls;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Optional;
import org.jboss.logging.Logger;

/**
 * Zaqar's subscription confirmation requests, sent with {@code pigeon.notification.require-confirmation} on (and to
 * {@code mailto:} subscribers with {@code pigeon.notification.mail.require-confirmation}, on by default): a
 * new (or re-subscribing, unconfirmed) webhook subscriber is posted a document that carries a pre-signed URL
 * granting {@code PUT} on its own {@code .../confirm} path, and the bodies to send there; an unsubscribed one is
 * told so. Delivered by the delivery engine, with its retries. Without a signing key nothing can be signed:
 * as in Zaqar, the request is not sent and the operator is told in the log. Where mail is sent, a {@code mailto:}
 * subscriber is asked by mail, as Zaqar's mail task does ({@link #sendMail}).
 */
@ApplicationScoped
public class SubscriptionConfirmations {

    private static final Logger LOG = Logger.getLogger(SubscriptionConfirmations.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final boolean required;
    private final boolean mailRequired;
    private final int unsubscribedTtl;
    /** Zaqar's {@code external_confirmation_url}: the page a confirmation mail links to (none: no mail is sent). */
    private final Optional<String> mailConfirmationPage;
    /** Pigeon's public base URL, for the link's {@code Url} parameter (none: empty). */
    private final Optional<String> publicUrl;

    private final SignedUrls signedUrls;
    private final DispatchService deliveries;

    public SubscriptionConfirmations(
            PigeonConfig config,
            NotificationSettings notificationSettings,
            SignedUrls signedUrls,
            DispatchService deliveries) {
        this.required = notificationSettings.requireConfirmation();
        // With mail off no mail is sent, and a mailto: subscription is Zaqar's (its project may confirm it).
        this.mailRequired = notificationSettings.mail().enabled()
                && notificationSettings.mail().requireConfirmation();
        this.unsubscribedTtl = config.defaultSubscriptionTtl();
        this.mailConfirmationPage = notificationSettings.mail().confirmationUrl();
        this.publicUrl = notificationSettings.mail().publicUrl();
        this.signedUrls = signedUrls;
        this.deliveries = deliveries;
    }

    /**
     * Whether {@code subscriber} must confirm before it is notified: a webhook when
     * {@code pigeon.notification.require-confirmation} is on; a {@code mailto:} subscriber also when mail is on and
     * {@code pigeon.notification.mail.require-confirmation} is (on by default), so that no project can make Pigeon mail
     * an address that did not ask for it.
     */
    public boolean required(String subscriber) {
        return required || mailRequired && Subscription.isMail(subscriber);
    }

    /** How long a confirmation request for {@code subscription} is valid: its ttl, at most a grant's lifetime. */
    public int validSeconds(Subscription subscription) {
        return (int) Math.min(subscription.ttl(), signedUrls.maxLifetime().toSeconds());
    }

    /** How long an unsubscribe notice (which may be used to subscribe again) is valid. */
    public int unsubscribedValidSeconds() {
        return (int) Math.min(unsubscribedTtl, signedUrls.maxLifetime().toSeconds());
    }

    /** Asks a webhook subscriber to confirm its subscription, with a grant that expires {@code until}. */
    public Uni<Void> askToConfirm(String project, QueueName queue, Subscription subscription, Instant until) {
        return send(
                project,
                queue,
                subscription,
                "SubscriptionConfirmation",
                "You have chosen to subscribe to the " + queue.kind() + ": " + queue,
                until);
    }

    /** Tells a webhook subscriber it has unsubscribed, and how to subscribe again (until {@code until}). */
    public Uni<Void> tellUnsubscribed(String project, QueueName queue, Subscription subscription, Instant until) {
        return send(
                project,
                queue,
                subscription,
                "UnsubscribeConfirmation",
                "You have unsubscribed successfully to " + "the " + queue.kind() + ": " + queue
                        + ", you can resubscribe it by using confirmed=True.",
                until);
    }

    private Uni<Void> send(
            String project, QueueName queue, Subscription subscription, String type, String text, Instant until) {
        // A socket's subscription is asked nothing: its socket consented by subscribing itself.
        if (!required(subscription.subscriber()) || !subscription.delivered() || SocketPushes.isSocket(subscription)) {
            return Uni.createFrom().voidItem();
        }
        if (!signedUrls.enabled()) {
            LOG.errorf(
                    "Subscription %d of %s %s was not sent its confirmation request: no signing key is set "
                            + "(PIGEON_SIGNED_URL_SECRET_KEY)",
                    subscription.id(), queue.kind(), queue);
            return Uni.createFrom().voidItem();
        }
        String confirmPath = "/v2/" + (queue.isTopic() ? "topics/" : "queues/") + queue.name() + "/subscriptions/"
                + MessageIds.format(subscription.id()) + "/confirm";
        SignedUrls.Grant grant = signedUrls.signConfirmation(confirmPath, project, until);
        ObjectNode document = JSON.createObjectNode()
                .put("Message_Type", type)
                .put("Message", text)
                .put("URL-Signature", grant.signature())
                .put("URL-Methods", "PUT")
                .put("URL-Paths", confirmPath)
                .put("X-Project-ID", project)
                .put("URL-Expires", grant.expires())
                .put("queue_name", queue.name());
        if (subscription.mail()) {
            return sendMail(project, queue, subscription, type, grant, confirmPath);
        }
        document.putObject("SubscribeBody").put("confirmed", true);
        document.putObject("UnsubscribeBody").put("confirmed", false);
        DispatchAddress address =
                new DispatchAddress("POST", DispatchAddress.httpUrl("subscriber", subscription.subscriber()));
        // As Zaqar's webhook does, the subscription's own post_headers go with it.
        JsonNode headers =
                StrictJson.readStoredObject(subscription.optionsJson()).get("post_headers");
        return deliveries.call(
                project,
                "confirm:" + subscription.id(),
                address,
                document.toString(),
                headers == null || !headers.isObject() ? null : headers.toString());
    }

    /**
     * A {@code mailto:} subscriber's confirmation request or unsubscribe notice, as Zaqar's mail task writes it: its
     * template's subject and text, with a link to the confirmation page ({@code confirmation-url}) that carries the
     * grant in its query. Without such a page, as in Zaqar, nothing is sent (and the operator is told in the log).
     */
    private Uni<Void> sendMail(
            String project,
            QueueName queue,
            Subscription subscription,
            String type,
            SignedUrls.Grant grant,
            String confirmPath) {
        if (mailConfirmationPage.isEmpty()) {
            LOG.errorf(
                    "Subscription %d of %s %s was not sent its confirmation mail: no confirmation page is set "
                            + "(pigeon.notification.mail.confirmation-url, Zaqar's external_confirmation_url)",
                    subscription.id(), queue.kind(), queue);
            return Uni.createFrom().voidItem();
        }
        URI recipient;
        try {
            recipient = new URI("mailto", subscription.subscriber().substring("mailto:".length()), null);
        } catch (URISyntaxException e) {
            LOG.errorf(
                    "Subscription %d was not sent its confirmation mail: its subscriber is not a URI",
                    subscription.id());
            return Uni.createFrom().voidItem();
        }
        String link = mailConfirmationPage.get()
                + "?Signature=" + urlEncoded(grant.signature())
                + "&Methods=PUT"
                + "&Paths=" + urlEncoded(confirmPath)
                + "&Project=" + urlEncoded(project)
                + "&Expires=" + urlEncoded(grant.expires())
                + "&Url="
                + urlEncoded(publicUrl
                        .map(base -> base.replaceAll("/+$", "") + confirmPath)
                        .orElse(""))
                + "&Queue=" + urlEncoded(queue.name());
        boolean subscribing = type.equals("SubscriptionConfirmation");
        String text = subscribing
                ? "You have chosen to subscribe to the " + queue.kind() + ": " + queue + ". This " + queue.kind()
                        + " belongs to project: " + project + ". To confirm this subscription, click or visit this "
                        + "link below: " + link
                : "You have unsubscribed successfully to the " + queue.kind() + ": " + queue + ". This "
                        + queue.kind() + " belongs to project: " + project + ". To resubscribe this subscription, "
                        + "click or visit this link below: " + link;
        String subject = subscribing
                ? "Zaqar Notification - Subscription Confirmation"
                : "Zaqar Notification - Unsubscribe Confirmation";
        return deliveries.call(
                project,
                "confirm:" + subscription.id(),
                new DispatchAddress("POST", recipient),
                text,
                JSON.createObjectNode().put("topic", subject).toString());
    }

    private static String urlEncoded(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }
}
