package io.pigeon.mail;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.icegreen.greenmail.util.GreenMail;
import com.icegreen.greenmail.util.ServerSetup;
import io.pigeon.api.v2.ZaqarOptInsProfile;
import io.pigeon.testing.Api;
import io.pigeon.testing.Db;
import io.pigeon.testing.Eventually;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import jakarta.mail.Address;
import jakarta.mail.Message;
import jakarta.mail.MessagingException;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeMessage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code mailto:} subscribers receive real mail, through a real SMTP server (GreenMail) that the test starts, stops and
 * starts again: what a user of Zaqar's mail notifications sees in their mailbox, from the confirmation request to the
 * notifications, formatted as Zaqar 15's mail task writes them.
 */
@QuarkusTest
@TestProfile(ZaqarOptInsProfile.class)
class MailNotificationTest {

    private static final ServerSetup SMTP =
            new ServerSetup(ZaqarOptInsProfile.SMTP_PORT, "127.0.0.1", ServerSetup.PROTOCOL_SMTP);
    private static final Pattern CONFIRMATION_LINK =
            Pattern.compile(Pattern.quote(ZaqarOptInsProfile.CONFIRMATION_PAGE) + "\\?(\\S+)");
    private static final Duration MAIL_WITHIN = Duration.ofSeconds(10);

    private static GreenMail smtp;

    @Inject
    Pool pool;

    private final String project = Api.newProject();
    private final String address = "user-" + UUID.randomUUID() + "@example.com";

    @BeforeAll
    static void startSmtp() {
        smtp = new GreenMail(SMTP);
        smtp.start();
    }

    @AfterAll
    static void stopSmtp() {
        if (smtp != null) {
            smtp.stop();
        }
    }

    @Test
    void aPostArrivesAsZaqarsMailWithTheSubscriptionsSubjectAndSender() throws Exception {
        subscribeAndConfirm(
                "orders", "mailto:" + address, "{\"from\": \"queues@example.org\", \"subject\": \"Orders\"}");

        post(
                "orders",
                "{\"ttl\": 300, \"body\": {\"event\": \"caf\u00e9 \u2615\", \"n\": 1.5, \"ok\": true, "
                        + "\"none\": null, \"list\": [1, \"two\"]}}");

        MimeMessage mail = awaitMails(2).get(1);
        assertEquals(List.of(address), recipients(mail));
        assertEquals("queues@example.org", sender(mail));
        assertEquals("Orders", mail.getSubject());
        assertEquals(
                "{\"ttl\": 300, \"body\": {\"event\": \"caf\\u00e9 \\u2615\", \"n\": 1.5, \"ok\": true, \"none\": null, "
                        + "\"list\": [1, \"two\"]}, \"Message_Type\": \"Notification\", \"queue_name\": \"orders\"}",
                text(mail));
    }

    @Test
    void theAddressesSubjectWinsAndTheConfiguredSenderStandsInForNone() throws Exception {
        String id = subscribeAndConfirm(
                "orders", "mailto:" + address + "?subject=Hello%20there", "{\"subject\": \"not this one\"}");
        Api.as(project)
                .get("/v2/queues/orders/subscriptions/" + id)
                .then()
                .statusCode(200)
                .body("delivery", equalTo("mail"))
                .body("confirmed", equalTo(true));

        post("orders", "{\"ttl\": 60, \"body\": \"plain\"}");

        MimeMessage mail = awaitMails(2).get(1);
        assertEquals(List.of(address), recipients(mail));
        assertEquals(ZaqarOptInsProfile.SENDER, sender(mail));
        assertEquals("Hello there", mail.getSubject());
        assertEquals(
                "{\"ttl\": 60, \"body\": \"plain\", \"Message_Type\": \"Notification\", \"queue_name\": \"orders\"}",
                text(mail));
    }

    @Test
    void aBatchPostSendsOneMailPerMessage() throws Exception {
        subscribeAndConfirm("orders", "mailto:" + address, "{}");

        post("orders", "{\"ttl\": 60, \"body\": 1}, {\"ttl\": 60, \"body\": 2}, {\"ttl\": 60, \"body\": 3}");

        List<MimeMessage> mails = awaitMails(4).subList(1, 4);
        Set<String> texts = mails.stream().map(MailNotificationTest::text).collect(Collectors.toSet());
        assertEquals(
                Set.of(
                        "{\"ttl\": 60, \"body\": 1, \"Message_Type\": \"Notification\", \"queue_name\": \"orders\"}",
                        "{\"ttl\": 60, \"body\": 2, \"Message_Type\": \"Notification\", \"queue_name\": \"orders\"}",
                        "{\"ttl\": 60, \"body\": 3, \"Message_Type\": \"Notification\", \"queue_name\": \"orders\"}"),
                texts);
    }

    @Test
    void aQueueOfTheProjectWithoutSubscriberSendsNothing() throws Exception {
        subscribeAndConfirm("orders", "mailto:" + address, "{}");

        // The quiet queue's post comes first: had it been sent, its mail would be due before the other's.
        post("quiet", "{\"ttl\": 60, \"body\": \"not for mail\"}");
        post("orders", "{\"ttl\": 60, \"body\": \"for mail\"}");

        awaitMails(2);
        Eventually.pause(Duration.ofSeconds(1));
        List<MimeMessage> mails = mailsTo(address);
        assertEquals(2, mails.size(), "the confirmation request and the notification of the subscribed queue");
        assertEquals(
                "{\"ttl\": 60, \"body\": \"for mail\", \"Message_Type\": \"Notification\", \"queue_name\": \"orders\"}",
                text(mails.get(1)));
        assertTrue(
                Arrays.stream(smtp.getReceivedMessages())
                        .noneMatch(mail -> text(mail).contains("not for mail")),
                "no mail of the quiet queue, to anyone");
    }

    @Test
    void aMailIsRetriedWhileTheServerIsDownAndArrivesOnceItIsBack() throws Exception {
        // A retry every second, long enough to outlast the outage.
        subscribeAndConfirm(
                "orders",
                "mailto:" + address,
                "{\"_retry_policy\": {\"retries_with_no_delay\": 0, \"minimum_delay_retries\": 100, "
                        + "\"minimum_delay\": 1, \"maximum_delay\": 1, \"maximum_delay_retries\": 0}}");
        smtp.stop();
        try {
            double failedBefore = failedCalls();
            post("orders", "{\"ttl\": 60, \"body\": \"through the outage\"}");
            // What the operator sees: the delivery fails (its metric counts it), and nothing is lost.
            Eventually.await(
                    "a failed send while the SMTP server is down", MAIL_WITHIN, () -> failedCalls() > failedBefore);
        } finally {
            smtp = new GreenMail(SMTP);
            smtp.start();
        }

        List<MimeMessage> mails = awaitMails(1);
        assertEquals(List.of(address), recipients(mails.get(0)));
        assertEquals(
                "{\"ttl\": 60, \"body\": \"through the outage\", \"Message_Type\": \"Notification\", "
                        + "\"queue_name\": \"orders\"}",
                text(mails.get(0)));
        Eventually.pause(Duration.ofSeconds(1));
        assertEquals(1, mailsTo(address).size(), "sent once, once the server is back");
    }

    @Test
    void aTenantsFromIsOnlyTheHeadersSenderNeverTheEnvelopeSenderAndNoEmptyCc() throws Exception {
        subscribeAndConfirm(
                "orders", "mailto:" + address, "{\"from\": \"queues@a." + ZaqarOptInsProfile.ALLOWED_PARENT + "\"}");
        post("orders", "{\"ttl\": 60, \"body\": \"from whom\"}");

        List<MimeMessage> mails = awaitMails(2);
        MimeMessage notification = mails.get(1);
        assertEquals("queues@a." + ZaqarOptInsProfile.ALLOWED_PARENT, sender(notification));
        // GreenMail records the SMTP MAIL FROM it was given as the Return-Path: bounces go to the deployment.
        for (MimeMessage mail : mails) {
            assertEquals(List.of("<" + ZaqarOptInsProfile.SENDER + ">"), List.of(mail.getHeader("Return-Path")));
        }
        for (MimeMessage mail : mails) {
            String head = raw(mail).split("\r\n\r\n", 2)[0];
            assertTrue(
                    head.lines().noneMatch(line -> line.regionMatches(true, 0, "Cc:", 0, 3)), "no Cc header: " + head);
        }
    }

    @Test
    void aFromOutsideTheAllowedDomainsIsRefusedAndNothingIsStored() {
        for (String from : List.of(
                "ceo@bank.example",
                "x@sub." + ZaqarOptInsProfile.ALLOWED_DOMAIN,
                "x@" + ZaqarOptInsProfile.ALLOWED_PARENT,
                "x@evil" + ZaqarOptInsProfile.ALLOWED_PARENT,
                "x@" + ZaqarOptInsProfile.ALLOWED_DOMAIN + ".evil.test")) {
            Api.as(project)
                    .contentType(ContentType.JSON)
                    .body("{\"subscriber\": \"mailto:" + address + "\", \"options\": {\"from\": \"" + from + "\"}}")
                    .post("/v2/queues/orders/subscriptions")
                    .then()
                    .statusCode(400)
                    .body("title", equalTo("Invalid API request"))
                    .body("description", containsString("options.from"))
                    .body("description", containsString("pigeon.notification.mail.allowed-from-domains"));
        }
        // Only a bare address: a display name, even before an allowed address, could show a recipient any sender.
        for (String from : List.of(
                "Bank <ceo@bank.example>",
                "\\\"ceo@bank.example\\\" <q@" + ZaqarOptInsProfile.ALLOWED_DOMAIN + ">",
                "Queues <q@" + ZaqarOptInsProfile.ALLOWED_DOMAIN + ">")) {
            Api.as(project)
                    .contentType(ContentType.JSON)
                    .body("{\"subscriber\": \"mailto:" + address + "\", \"options\": {\"from\": \"" + from + "\"}}")
                    .post("/v2/queues/orders/subscriptions")
                    .then()
                    .statusCode(400)
                    .body("title", equalTo("Invalid API request"))
                    .body("description", containsString("bare mail address"));
        }
        assertEquals(0, Db.count(pool, "SELECT count(*) FROM subscriptions WHERE project = $1", project));
        Eventually.pause(Duration.ofSeconds(1));
        assertEquals(List.of(), mailsTo(address), "nothing was asked to confirm");

        // An update is held to the same rule, and leaves the stored options as they were.
        String id = Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"subscriber\": \"mailto:" + address + "\", \"options\": {\"from\": \"q@"
                        + ZaqarOptInsProfile.ALLOWED_DOMAIN.toUpperCase(Locale.ROOT) + "\"}}")
                .post("/v2/queues/orders/subscriptions")
                .then()
                .statusCode(201)
                .extract()
                .jsonPath()
                .getString("subscription_id");
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"options\": {\"from\": \"ceo@bank.example\"}}")
                .patch("/v2/queues/orders/subscriptions/" + id)
                .then()
                .statusCode(400)
                .body("description", containsString("pigeon.notification.mail.allowed-from-domains"));
        Api.as(project)
                .get("/v2/queues/orders/subscriptions/" + id)
                .then()
                .statusCode(200)
                .body("options.from", equalTo("q@EXAMPLE.ORG"));
    }

    @Test
    void aFromStoredBeforeTheRuleIsMailedFromTheDeploymentsSender() throws Exception {
        subscribeAndConfirm("orders", "mailto:" + address, "{}");
        // As a subscription stored by an earlier version, or before the operator narrowed the list.
        Db.run(
                pool,
                "UPDATE subscriptions SET options = '{\"from\": \"ceo@bank.example\"}' WHERE project = $1",
                project);

        post("orders", "{\"ttl\": 60, \"body\": \"stored before\"}");

        MimeMessage mail = awaitMails(2).get(1);
        assertEquals(ZaqarOptInsProfile.SENDER, sender(mail));
        assertEquals(List.of("<" + ZaqarOptInsProfile.SENDER + ">"), List.of(mail.getHeader("Return-Path")));
    }

    @Test
    void aMailtoSubscriberIsNotifiedOnlyOnceItConfirmedWhichOnlyItCanDo() throws Exception {
        String id = Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"subscriber\": \"mailto:" + address + "\"}")
                .post("/v2/queues/orders/subscriptions")
                .then()
                .statusCode(201)
                .extract()
                .jsonPath()
                .getString("subscription_id");
        assertEquals(
                "Zaqar Notification - Subscription Confirmation",
                awaitMails(1).get(0).getSubject());

        post("orders", "{\"ttl\": 60, \"body\": \"not yet\"}");
        // The project cannot confirm for the address.
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"confirmed\": true}")
                .put("/v2/queues/orders/subscriptions/" + id + "/confirm")
                .then()
                .statusCode(403)
                .body("description", containsString("pigeon.notification.mail.require-confirmation"));

        Eventually.pause(Duration.ofSeconds(2));
        assertEquals(1, mailsTo(address).size(), "the confirmation request only");
        assertEquals(
                0,
                Db.count(
                        pool,
                        "SELECT count(*) FROM dispatch_groups WHERE project = $1 AND merge_key LIKE '-subscription:%'",
                        project),
                "no notification queued for an unconfirmed address");
    }

    @Test
    void aProjectsMailsArePacedByItsRateDelayedNeverDropped() throws Exception {
        subscribeAndConfirm("orders", "mailto:" + address, "{}");
        int burst = ZaqarOptInsProfile.MAILS_PER_MINUTE;
        long intervalMillis = 60_000 / burst;
        // The confirmation mail took one of the burst; this post asks for five more than the rest.
        int extra = 5;
        StringBuilder messages = new StringBuilder();
        for (int i = 0; i < burst - 1 + extra; i++) {
            messages.append(i == 0 ? "" : ", ")
                    .append("{\"ttl\": 300, \"body\": ")
                    .append(i)
                    .append('}');
        }
        double deferredBefore = deferredCalls();
        long start = System.nanoTime();
        post("orders", messages.toString());

        awaitMails(burst);
        long elapsed = (System.nanoTime() - start) / 1_000_000;
        int seen = mailsTo(address).size();
        // Past the burst, one mail per interval: never more than that by now (the confirmation started before start).
        assertTrue(
                seen <= burst + elapsed / intervalMillis + 1,
                seen + " mails " + elapsed + " ms after the post, with a burst of " + burst);
        assertTrue(deferredCalls() > deferredBefore, "mails past the rate are put back");

        // Every mail arrives in the end, once each.
        Eventually.await(
                "every mail, paced",
                Duration.ofSeconds(60),
                () -> mailsTo(address).size() >= burst + extra);
        Eventually.pause(Duration.ofSeconds(1));
        List<MimeMessage> all = mailsTo(address);
        assertEquals(burst + extra, all.size());
        assertEquals(
                burst - 1 + extra,
                all.stream().skip(1).map(MailNotificationTest::text).distinct().count(),
                "each message mailed once");
    }

    /**
     * Subscribes {@code subscriber} (at this test's address) to {@code queue} and confirms it as its owner would: with
     * the grant in the link of the confirmation mail, and nothing else of the project's. The subscription's id.
     */
    private String subscribeAndConfirm(String queue, String subscriber, String options) throws Exception {
        String id = Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"subscriber\": \"" + subscriber + "\", \"ttl\": 3600, \"options\": " + options + "}")
                .post("/v2/queues/" + queue + "/subscriptions")
                .then()
                .statusCode(201)
                .extract()
                .jsonPath()
                .getString("subscription_id");
        MimeMessage request = awaitMails(1).get(0);
        assertEquals(List.of(address), recipients(request));
        assertEquals(ZaqarOptInsProfile.SENDER, sender(request));
        assertEquals("Zaqar Notification - Subscription Confirmation", request.getSubject());
        String text = text(request);
        assertTrue(
                text.startsWith("You have chosen to subscribe to the queue: " + queue + ". This queue belongs to "
                        + "project: " + project + ". To confirm this subscription, click or visit this link "
                        + "below: " + ZaqarOptInsProfile.CONFIRMATION_PAGE + "?"),
                text);
        Matcher link = CONFIRMATION_LINK.matcher(text);
        assertTrue(link.find(), text);
        Map<String, String> grant = query(link.group(1));
        String confirmPath = "/v2/queues/" + queue + "/subscriptions/" + id + "/confirm";
        assertEquals(confirmPath, grant.get("Paths"));
        assertEquals("PUT", grant.get("Methods"));
        assertEquals(project, grant.get("Project"));
        assertEquals(queue, grant.get("Queue"));
        assertEquals("https://queues.example.test" + confirmPath, grant.get("Url"));

        given().header("Client-ID", Api.CLIENT_ID)
                .header("X-Project-Id", grant.get("Project"))
                .header("URL-Signature", grant.get("Signature"))
                .header("URL-Expires", grant.get("Expires"))
                .header("URL-Methods", grant.get("Methods"))
                .header("URL-Paths", grant.get("Paths"))
                .contentType(ContentType.JSON)
                .body("{\"confirmed\": true}")
                .put(grant.get("Url").substring("https://queues.example.test".length()))
                .then()
                .statusCode(204);
        return id;
    }

    private void post(String queue, String messages) {
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"messages\": [" + messages + "]}")
                .post("/v2/queues/" + queue + "/messages")
                .then()
                .statusCode(201);
    }

    /** Waits until {@code count} mails have reached this test's address; all of them, in arrival order. */
    private List<MimeMessage> awaitMails(int count) {
        Eventually.await(
                count + " mail(s) to " + address,
                MAIL_WITHIN,
                () -> mailsTo(address).size() >= count);
        return mailsTo(address);
    }

    private static List<MimeMessage> mailsTo(String address) {
        return Arrays.stream(smtp.getReceivedMessages())
                .filter(mail -> recipients(mail).contains(address))
                .toList();
    }

    private static List<String> recipients(MimeMessage mail) {
        try {
            Address[] to = mail.getRecipients(Message.RecipientType.TO);
            return to == null
                    ? List.of()
                    : Arrays.stream(to)
                            .map(one -> ((InternetAddress) one).getAddress())
                            .toList();
        } catch (MessagingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String sender(MimeMessage mail) throws MessagingException {
        return ((InternetAddress) mail.getFrom()[0]).getAddress();
    }

    private static String text(MimeMessage mail) {
        try {
            return mail.getContent().toString().strip();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (MessagingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Map<String, String> query(String query) {
        Map<String, String> parameters = new HashMap<>();
        for (String pair : query.split("&")) {
            int equals = pair.indexOf('=');
            parameters.put(
                    URLDecoder.decode(pair.substring(0, equals), StandardCharsets.UTF_8),
                    URLDecoder.decode(pair.substring(equals + 1), StandardCharsets.UTF_8));
        }
        return parameters;
    }

    /** What /q/metrics counts of the delivery engine's failed calls and mails (on this replica, since start). */
    private static double failedCalls() {
        return calls("failed");
    }

    /** What /q/metrics counts of calls and mails put back by a rate (on this replica, since start). */
    private static double deferredCalls() {
        return calls("deferred");
    }

    private static double calls(String outcome) {
        return given().get("/q/metrics")
                .asString()
                .lines()
                .filter(line ->
                        line.startsWith("pigeon_dispatch_calls_total{") && line.contains("outcome=\"" + outcome + "\""))
                .mapToDouble(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
                .sum();
    }

    /** The message as GreenMail received it, headers and body, as text. */
    private static String raw(MimeMessage mail) {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            mail.writeTo(bytes);
            return bytes.toString(StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (MessagingException e) {
            throw new IllegalStateException(e);
        }
    }
}
