package io.pigeon.api.console;

import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.maintenance.Sweeper;
import io.pigeon.pool.PoolClients;
import io.pigeon.testing.Api;
import io.pigeon.testing.Db;
import io.pigeon.testing.DispatchClock;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.RestAssured;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.Keys;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebDriverException;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The console in a real browser: Debian's Chromium, driven through Debian's chromedriver (both named by path, so
 * Selenium Manager never runs and nothing is downloaded), headless, with a new empty profile. Each step asserts what a
 * user sees, and a screenshot of each page is kept under target/console-screenshots/. Skipped, with the reason, where
 * Chromium or its driver is not installed ({@code .ci/run} installs them as root).
 */
@QuarkusTest
@TestProfile(ConsoleProfile.class)
class ConsoleBrowserTest {

    private static final Path SCREENSHOTS = Path.of("target/console-screenshots");
    /** The test profile samples every second; a page must show a change within that, plus the statement's own time. */
    private static final Duration SAMPLE_PERIOD = Duration.ofSeconds(1);

    private static Chromium chromium;
    private static ChromeDriver browser;

    @TestHTTPResource("/")
    URL root;

    @Inject
    Sweeper sweeper;

    @Inject
    Pool pool;

    @Inject
    PoolClients pools;

    @BeforeAll
    static void startTheBrowser() throws IOException {
        chromium = Chromium.start("the console's browser tests");
        browser = chromium.driver;
        Files.createDirectories(SCREENSHOTS);
    }

    @AfterAll
    static void stopTheBrowser() throws IOException {
        if (chromium != null) {
            chromium.close();
        }
    }

    @Test
    void pickAProjectCreateAQueueSeeTheDepthChangePeekSafelyAndPurgeWithConfirmation() {
        String project = ConsoleProfile.SHOWN;
        String queue = "orders-" + shortId();

        open("/console");
        assertTrue(text("#banner").contains("anyone who can reach this console"), text("#banner"));
        screenshot("01-chooser");
        navigate(browser.findElement(By.linkText(project)));
        assertEquals("Queues of " + project, text("h1"));

        // The queue is created through the console, as the API's PUT creates it; a bad attribute is refused first.
        navigate(browser.findElement(By.id("new-queue-link")));
        browser.findElement(By.id("name")).sendKeys(queue);
        browser.findElement(By.id("metadata")).sendKeys("{\"_default_message_ttl\": 5}");
        navigate(browser.findElement(By.id("confirm")));
        assertTrue(text("#error").contains("_default_message_ttl"), text("#error"));
        Api.as(project).get("/v1/queues/" + queue).then().statusCode(404); // v1 answers whether it exists
        screenshot("01b-new-queue-refused");
        browser.findElement(By.id("metadata")).clear();
        browser.findElement(By.id("metadata")).sendKeys("{\"team\": \"orders\"}");
        navigate(browser.findElement(By.id("confirm")));
        assertEquals(
                root.getPath() + "console/projects/" + project + "/queues/" + queue,
                URI.create(browser.getCurrentUrl()).getPath());
        Api.as(project).get("/v2/queues/" + queue).then().statusCode(200).body("team", is("orders"));
        open("/console/projects/" + project);
        WebElement row = row(queue);
        String ready = row.findElement(By.cssSelector(".ready")).getText();
        assertTrue(ready.equals("–") || ready.equals("0"), "not sampled yet, or sampled empty: " + ready);

        postViaApi(project, queue, "{\"n\": 1}", "{\"n\": 2}", "{\"n\": 3}");
        long posted = System.nanoTime();
        until("the table shows 3 ready messages", () -> {
            browser.navigate().refresh();
            return row(queue).findElement(By.cssSelector(".ready")).getText().equals("3");
        });
        Duration seen = Duration.ofNanos(System.nanoTime() - posted);
        assertTrue(
                seen.compareTo(SAMPLE_PERIOD.multipliedBy(3)) < 0,
                "seen after " + seen + ", more than a sample period and the sample's own time");
        screenshot("02-queues");

        // A body that would run script if any page wrote it as HTML: it must be shown as text and run nothing.
        navigate(row(queue).findElement(By.linkText(queue)));
        navigate(browser.findElement(By.id("action-post")));
        assertEquals("Post a test message to queue " + queue + ".", text("#question"));
        String hostile = "{\"html\": \"<script>window.pwned = 1; document.title = 'pwned'</script>"
                + "<img src=x onerror=\\\"window.pwned = 2; document.title = 'pwned'\\\">\","
                + " \"close\": \"</pre></td><script>window.pwned = 3</script>\"}";
        WebElement body = browser.findElement(By.id("body"));
        body.clear();
        body.sendKeys(hostile);
        browser.findElement(By.id("ttl")).sendKeys("10");
        screenshot("03-post-form");
        navigate(browser.findElement(By.id("confirm")));
        // Refused by the API's own reader, on the page, naming the field and its bound; nothing was posted.
        assertTrue(text("#error").toLowerCase(Locale.ROOT).contains("ttl"), text("#error"));
        assertTrue(text("#error").contains("60"), text("#error"));
        screenshot("04-post-refused");
        assertEquals(3, messagesViaApi(project, queue));
        WebElement ttl = browser.findElement(By.id("ttl"));
        ttl.clear();
        ttl.sendKeys("300");
        navigate(browser.findElement(By.id("confirm")));
        assertEquals("The test message was posted.", text("#notice"));
        assertEquals(4, messagesViaApi(project, queue));

        List<WebElement> bodies = browser.findElements(By.cssSelector("#messages pre.body"));
        assertEquals(4, bodies.size());
        // The ids shown are the API's own, in the same order: one can be copied into a GET of that message.
        List<String> apiIds = Api.as(project)
                .get("/v2/queues/" + queue + "/messages?echo=true&include_claimed=true&limit=10")
                .then()
                .statusCode(200)
                .extract()
                .path("messages.id");
        assertEquals(
                apiIds,
                browser.findElements(By.cssSelector("#messages td.id")).stream()
                        .map(WebElement::getText)
                        .toList());
        assertTrue(
                bodies.get(3).getText().contains("<script>window.pwned = 1;"),
                bodies.get(3).getText());
        assertTrue(
                bodies.get(3).getText().contains("<img src=x onerror="),
                bodies.get(3).getText());
        JavascriptExecutor script = browser;
        assertEquals("undefined", script.executeScript("return typeof window.pwned"));
        assertEquals("Queue " + queue + " · Pigeon", browser.getTitle());
        for (WebElement element : browser.findElements(By.tagName("script"))) {
            String source = element.getDomAttribute("src");
            assertTrue(
                    source != null
                            && (source.startsWith("/webjars/uplot/") || source.equals("/console/assets/flow.js")),
                    "only the chart's own files are scripts: " + source);
        }
        assertEquals(0, browser.findElements(By.tagName("img")).size(), "no image element on the page");
        screenshot("05-queue-peeked");

        until("the flow chart shows the four posts", () -> {
            browser.navigate().refresh();
            return !browser.findElements(By.cssSelector("#flow[data-drawn] canvas"))
                            .isEmpty()
                    && sumOf(browser.findElement(By.id("flow")).getDomAttribute("data-posted")) * 60 > 3.99
                    && text("#flow-summary").startsWith("In the last hour: 4 posted, 0 consumed");
        });
        screenshot("05-queue-flow");

        navigate(browser.findElement(By.id("action-purge")));
        assertTrue(text("#question").startsWith("Purge queue " + queue), text("#question"));
        screenshot("06-purge-confirm");
        assertEquals(4, messagesViaApi(project, queue), "nothing purged before the confirmation");
        navigate(browser.findElement(By.id("confirm")));
        assertEquals("The queue's messages were purged.", text("#notice"));
        assertEquals("No message.", text("#messages tbody td"));
        assertEquals(0, messagesViaApi(project, queue));
        until("the flow chart shows the purge as consumed", () -> {
            browser.navigate().refresh();
            return sumOf(browser.findElement(By.id("flow")).getDomAttribute("data-consumed")) * 60 > 3.99
                    && text("#flow-summary").startsWith("In the last hour: 4 posted, 4 consumed");
        });

        // The table draws a sparkline per row, from the page's own data (one history statement for the page).
        open("/console/projects/" + project);
        until("the queue's sparkline carries its posts and its purge", () -> {
            browser.navigate().refresh();
            WebElement spark = row(queue).findElement(By.cssSelector(".spark"));
            String postedRates = spark.getDomAttribute("data-posted");
            String consumedRates = spark.getDomAttribute("data-consumed");
            return postedRates != null
                    && !postedRates.isEmpty()
                    && sumOf(postedRates) * 60 > 3.99
                    && consumedRates != null
                    && !consumedRates.isEmpty()
                    && sumOf(consumedRates) * 60 > 3.99;
        });
        List<WebElement> rows = browser.findElements(By.cssSelector("#queues tbody tr"));
        assertFalse(rows.isEmpty());
        for (WebElement each : rows) {
            assertEquals(
                    1,
                    each.findElements(By.cssSelector(".spark[data-drawn] canvas"))
                            .size(),
                    "a drawn sparkline in the row of " + each.getDomAttribute("data-queue"));
        }
        assertEquals(
                "In the last hour: 4 posted, 4 consumed",
                row(queue).findElement(By.cssSelector(".spark")).getDomAttribute("aria-label"));
        screenshot("18-sparklines");
        assertNoPolicyViolation();
    }

    @Test
    void metadataIsEditedWithTheApisBoundsAndARefusalStoresNothing() {
        String project = ConsoleProfile.SHOWN;
        String queue = "meta-" + shortId();
        Api.as(project)
                .contentType("application/json")
                .body("{\"owner\": \"team-a\", \"_default_message_ttl\": 600}")
                .put("/v2/queues/" + queue)
                .then()
                .statusCode(201);
        String before = storedMetadata(project, queue);

        open("/console/projects/" + project + "/queues/" + queue);
        // A queue without flow yet still has its chart span the last hour (not minutes from 1970).
        String minutes = browser.findElement(By.id("flow")).getDomAttribute("data-minutes");
        assertTrue(Long.parseLong(minutes.split(",")[0]) > 1_700_000_000L, minutes);
        navigate(browser.findElement(By.id("action-metadata")));
        WebElement ttl = browser.findElement(By.id("field-default-message-ttl"));
        assertEquals("600", ttl.getDomProperty("value"));
        assertTrue(
                browser.findElement(By.id("metadata")).getDomProperty("value").contains("\"owner\" : \"team-a\""),
                "the plain keys are the JSON text; the reserved ones have fields");
        ttl.clear();
        ttl.sendKeys("5");
        WebElement text = browser.findElement(By.id("metadata"));
        text.clear();
        text.sendKeys("{\"owner\": \"<script>window.pwned = 1</script>\"}");
        screenshot("15-metadata-form");
        navigate(browser.findElement(By.id("confirm")));
        // The queue service's own refusal, naming the attribute and its bound; the form kept as typed; nothing stored.
        assertTrue(text("#error").contains("_default_message_ttl must be an integer from 60 to"), text("#error"));
        assertEquals(
                "5", browser.findElement(By.id("field-default-message-ttl")).getDomProperty("value"));
        assertTrue(
                browser.findElement(By.id("metadata")).getDomProperty("value").contains("<script>"));
        assertEquals(before, storedMetadata(project, queue), "a refused form changes nothing stored");
        screenshot("16-metadata-refused");

        ttl = browser.findElement(By.id("field-default-message-ttl"));
        ttl.clear();
        ttl.sendKeys("900");
        browser.findElement(By.id("field-max-claim-count")).sendKeys("3");
        browser.findElement(By.id("field-dead-letter-queue")).sendKeys("dead-" + queue);
        navigate(browser.findElement(By.id("confirm")));
        assertEquals("The queue's metadata was replaced.", text("#notice"));
        String after = storedMetadata(project, queue);
        assertTrue(after.contains("\"_default_message_ttl\":900"), after);
        assertTrue(after.contains("\"_max_claim_count\":3"), after);
        assertTrue(after.contains("\"owner\":\"<script>window.pwned = 1</script>\""), after);
        // Inside a closed <details>: its text is there, not rendered visible, so read as the DOM holds it.
        assertTrue(
                browser.findElement(By.id("metadata"))
                        .getDomProperty("textContent")
                        .contains("<script>window.pwned = 1</script>"),
                "shown as text");
        assertEquals("undefined", browser.executeScript("return typeof window.pwned"));
        Api.as(project)
                .get("/v2/queues/" + queue)
                .then()
                .statusCode(200)
                .body("_default_message_ttl", is(900))
                .body("_dead_letter_queue", is("dead-" + queue));

        // Without the browser: a JSON text that is not an object, and an out-of-bounds field, each a 400 naming it.
        String form = "/console/projects/" + project + "/queues/" + queue + "/metadata";
        String token = "t".repeat(43);
        RestAssured.given()
                .cookie(ConsoleForms.COOKIE, token)
                .formParam("csrf", token)
                .formParam("metadata", "[1, 2]")
                .post(form)
                .then()
                .statusCode(400)
                .body(containsString("metadata"))
                .body(containsString("JSON object"));
        RestAssured.given()
                .cookie(ConsoleForms.COOKIE, token)
                .formParam("csrf", token)
                .formParam("metadata", "{}")
                .formParam("_max_messages_post_size", "0")
                .post(form)
                .then()
                .statusCode(400)
                .body(containsString("_max_messages_post_size must be an integer from 1 to"));
        RestAssured.given().formParam("metadata", "{}").post(form).then().statusCode(403);
        assertEquals(after, storedMetadata(project, queue), "no refused form changed anything");
    }

    @Test
    void aSubscriptionShowsItsDeliveryStateAndItsLastErrorAsText() {
        String project = ConsoleProfile.SHOWN;
        String queue = "notified-" + shortId();
        Api.as(project).put("/v2/queues/" + queue).then().statusCode(201);
        // Nothing listens on port 1: each notification call fails at once ("connection failed").
        String failing = subscribe(project, queue, "http://127.0.0.1:1/hook");
        String mail = subscribe(project, queue, "mailto:ops@example.com");
        postViaApi(project, queue, "{\"n\": 1}");
        try (DispatchClock hurried = DispatchClock.hurry(pools, project)) {
            open("/console/projects/" + project + "/queues/" + queue);
            until("the failing webhook shows its failure and last error", () -> {
                browser.navigate().refresh();
                WebElement row = subscriptionRow(failing);
                return !row.findElement(By.cssSelector(".failures")).getText().equals("0")
                        && row.findElement(By.cssSelector(".last-error"))
                                .getText()
                                .endsWith("ago: connection failed");
            });
        }
        assertEquals(
                "never",
                subscriptionRow(failing)
                        .findElement(By.cssSelector(".last-delivered"))
                        .getText());
        assertEquals(
                "not sent: mail is not configured here (pigeon.notification.mail.enabled=false)",
                subscriptionRow(mail).findElement(By.cssSelector(".delivery")).getText());
        assertEquals(
                "0",
                subscriptionRow(mail).findElement(By.cssSelector(".failures")).getText());
        screenshot("17-subscriptions");

        // Whatever text an error holds is shown as text: one holding markup runs nothing and makes no element.
        Db.run(
                pool,
                "UPDATE subscriptions SET last_error = $2 WHERE project = $1 AND subscriber = 'http://127.0.0.1:1/hook'",
                project,
                "HTTP 5xx <script>window.pwned = 1</script><img src=x onerror=\"window.pwned = 2\">");
        browser.navigate().refresh();
        assertTrue(
                subscriptionRow(failing)
                        .findElement(By.cssSelector(".error-text"))
                        .getText()
                        .equals("HTTP 5xx <script>window.pwned = 1</script><img src=x onerror=\"window.pwned = 2\">"),
                subscriptionRow(failing).getText());
        assertEquals("undefined", browser.executeScript("return typeof window.pwned"));
        assertEquals(
                0,
                browser.findElements(By.cssSelector("#subscriptions script, #subscriptions img"))
                        .size());
        assertNoPolicyViolation();
        // The column is bounded (migration V23): a longer text cannot be stored at all.
        assertThrows(
                RuntimeException.class,
                () -> Db.run(
                        pool, "UPDATE subscriptions SET last_error = repeat('x', 301) WHERE project = $1", project));
    }

    private static String subscribe(String project, String queue, String subscriber) {
        String location = Api.as(project)
                .contentType("application/json")
                .body("{\"subscriber\": \"" + subscriber + "\", \"ttl\": 3600}")
                .post("/v2/queues/" + queue + "/subscriptions")
                .then()
                .statusCode(201)
                .extract()
                .path("subscription_id");
        return location;
    }

    private static WebElement subscriptionRow(String id) {
        return browser.findElement(By.cssSelector("#subscriptions tr[data-subscription='" + id + "']"));
    }

    @Test
    void theOperatorViewListsAPoolWithItsHealthAndQueueCount() {
        String project = ConsoleProfile.SHOWN;
        String suffix = shortId();
        String poolName = "console-" + suffix;
        String flavor = "console-flavor-" + suffix;
        String queue = "pooled-" + suffix;
        String uri = Db.newDatabase(pool);
        // A pool of its own flavor: only a queue that names that flavor is placed there, no other test's queue.
        operatorCall(project)
                .contentType("application/json")
                .body("{\"uri\": \"" + uri + "\", \"weight\": 1, \"flavor\": \"" + flavor + "\"}")
                .put("/v2/pools/" + poolName)
                .then()
                .statusCode(201);
        operatorCall(project)
                .contentType("application/json")
                .body("{\"pool_list\": [\"" + poolName + "\"]}")
                .put("/v2/flavors/" + flavor)
                .then()
                .statusCode(201);
        Api.as(project)
                .contentType("application/json")
                .body("{\"_flavor\": \"" + flavor + "\"}")
                .put("/v2/queues/" + queue)
                .then()
                .statusCode(201);
        try {
            // Without the operator role (no X-Roles: admin), refused as the API refuses its pools.
            open("/console/operator");
            assertEquals("403 Forbidden", text("#failure-title"));
            assertFalse(browser.getPageSource().contains(poolName));
            RestAssured.given().get("/console/operator").then().statusCode(403);

            browser.executeCdpCommand("Network.enable", Map.of());
            browser.executeCdpCommand("Network.setExtraHTTPHeaders", Map.of("headers", Map.of("X-Roles", "admin")));
            try {
                open("/console/operator");
                WebElement row = browser.findElement(By.cssSelector("#pools tr[data-pool='" + poolName + "']"));
                assertEquals(
                        "reachable", row.findElement(By.cssSelector(".health")).getText());
                assertEquals("1", row.findElement(By.cssSelector(".queues")).getText());
                assertFalse(row.getText().contains(":pigeon@"), "the server is shown without its password");
                assertEquals("reachable", text("#pools tr[data-pool=''] .health"), "the configured database");
                assertTrue(text("#flavors tr[data-flavor='" + flavor + "']").contains(poolName));
                screenshot("19-operator");
            } finally {
                browser.executeCdpCommand("Network.setExtraHTTPHeaders", Map.of("headers", Map.of()));
            }
        } finally {
            Api.as(project).delete("/v2/queues/" + queue).then().statusCode(204);
            operatorCall(project).delete("/v2/flavors/" + flavor).then().statusCode(204);
            operatorCall(project).delete("/v2/pools/" + poolName).then().statusCode(204);
        }
    }

    private static RequestSpecification operatorCall(String project) {
        return Api.as(project).header("X-Roles", "admin");
    }

    @Test
    void everyPageReadsAtADesksWidthAndAPhonesAndWorksWithTheKeyboard() {
        String project = ConsoleProfile.SHOWN;
        String queue = "layout-" + shortId();
        Api.as(project).put("/v2/queues/" + queue).then().statusCode(201);
        postViaApi(project, queue, "{\"order\": 1, \"lines\": [\"a long line of a body that a phone must wrap\"]}");
        subscribe(project, queue, "mailto:someone-with-a-long-address@example.com");
        String base = "/console/projects/" + project;
        Map<String, String> pages = new LinkedHashMap<>();
        pages.put("chooser", "/console");
        pages.put("queues", base);
        pages.put("queue", base + "/queues/" + queue);
        pages.put("metadata", base + "/queues/" + queue + "/metadata");
        pages.put("post", base + "/queues/" + queue + "/post");
        pages.put("dispatch", base + "/dispatch");
        pages.put("operator", "/console/operator");
        Dimension desk = browser.manage().window().getSize();
        browser.executeCdpCommand("Network.enable", Map.of());
        browser.executeCdpCommand("Network.setExtraHTTPHeaders", Map.of("headers", Map.of("X-Roles", "admin")));
        try {
            for (int width : new int[] {1280, 390}) {
                browser.manage().window().setSize(new Dimension(width, width == 390 ? 844 : 900));
                for (Map.Entry<String, String> page : pages.entrySet()) {
                    open(page.getValue());
                    long overflow = (Long) browser.executeScript(
                            "return document.documentElement.scrollWidth - document.documentElement.clientWidth");
                    assertEquals(0, overflow, page.getKey() + " is wider than the window at " + width + " px");
                    screenshot("w" + width + "-" + page.getKey());
                    // Every field has a label that names it.
                    for (WebElement field :
                            browser.findElements(By.cssSelector("input:not([type=hidden]), textarea"))) {
                        String id = field.getDomAttribute("id");
                        assertFalse(
                                id == null
                                        || browser.findElements(By.cssSelector("label[for='" + id + "']"))
                                                .isEmpty(),
                                "a field without its label on " + page.getKey() + ": " + id);
                    }
                }
            }
        } finally {
            browser.executeCdpCommand("Network.setExtraHTTPHeaders", Map.of("headers", Map.of()));
            browser.manage().window().setSize(desk);
        }

        // The keyboard alone: from the top of the queue page to its metadata action, focus visible, Enter follows it.
        open(base + "/queues/" + queue);
        WebElement body = browser.findElement(By.tagName("body"));
        body.sendKeys(Keys.TAB);
        WebElement focused = browser.switchTo().activeElement();
        for (int i = 0; i < 30 && !"action-metadata".equals(focused.getDomAttribute("id")); i++) {
            focused.sendKeys(Keys.TAB);
            focused = browser.switchTo().activeElement();
        }
        assertEquals("action-metadata", focused.getDomAttribute("id"), "reached with the Tab key");
        assertEquals("solid", focused.getCssValue("outline-style"), "the focus is visible");
        navigate(focused, Keys.ENTER);
        assertTrue(text("h1").startsWith("Edit the metadata of queue"), text("h1"));
    }

    /** The queue's metadata as the database holds it. */
    private String storedMetadata(String project, String queue) {
        return Db.run(pool, "SELECT metadata::text AS m FROM queues WHERE project = $1 AND name = $2", project, queue)
                .iterator()
                .next()
                .getString("m");
    }

    /** The sum of a data attribute's comma-separated numbers. */
    private static double sumOf(String numbers) {
        double sum = 0;
        for (String number : numbers.split(",")) {
            sum += Double.parseDouble(number);
        }
        return sum;
    }

    /** Nothing the console's pages did was blocked by their Content-Security-Policy (so none of it needed to be). */
    private static void assertNoPolicyViolation() {
        List<String> blocked = browser.manage().logs().get(LogType.BROWSER).getAll().stream()
                .map(LogEntry::getMessage)
                .filter(message -> message.contains("Content Security Policy"))
                .toList();
        assertEquals(List.of(), blocked);
    }

    @Test
    void redriveADeadLetterQueueAndWatchItDrain() {
        String project = ConsoleProfile.ALSO_SHOWN;
        String work = "work-" + shortId();
        String dead = "dead-" + shortId();
        Api.as(project).put("/v2/queues/" + dead).then().statusCode(201);
        Api.as(project)
                .contentType("application/json")
                .body("{\"_max_claim_count\": 1, \"_dead_letter_queue\": \"" + dead + "\"}")
                .put("/v2/queues/" + work)
                .then()
                .statusCode(201);
        postViaApi(project, work, "{\"job\": 1}", "{\"job\": 2}", "{\"job\": 3}", "{\"job\": 4}");
        Response claim = Api.as(project)
                .contentType("application/json")
                .body("{\"ttl\": 60, \"grace\": 60}")
                .post("/v2/queues/" + work + "/claims?limit=4");
        claim.then().statusCode(201);
        Api.as(project).delete(claim.header("Location")).then().statusCode(204);
        sweeper.sweep().await().indefinitely();
        assertEquals(4, messagesViaApi(project, dead), "the four messages were dead-lettered");

        open("/console/projects/" + project + "?sort=ready");
        until("the dead-letter queue is marked, with its depth and source", () -> {
            browser.navigate().refresh();
            return row(dead)
                    .findElement(By.cssSelector(".dead"))
                    .getText()
                    .equals("dead-letter queue depth 4 · from " + work);
        });
        assertEquals(
                dead,
                browser.findElements(By.cssSelector("#queues tbody tr")).get(0).getAttribute("data-queue"),
                "sorted by ready messages, the deepest first");
        assertTrue(row(work).findElement(By.cssSelector(".dead")).getText().contains("dead letters go to " + dead));
        screenshot("07-dead-letter-queue");

        navigate(row(dead).findElement(By.linkText(dead)));
        navigate(browser.findElement(By.id("action-redrive")));
        screenshot("08-redrive-confirm");
        browser.findElement(By.id("rate")).sendKeys("100000");
        navigate(browser.findElement(By.id("confirm")));
        assertTrue(text("#error").contains("rate"), text("#error"));
        assertTrue(text("#error").contains("1000"), text("#error"));
        WebElement rate = browser.findElement(By.id("rate"));
        rate.clear();
        navigate(browser.findElement(By.id("confirm")));
        assertTrue(text("#notice").startsWith("A redrive of this queue's dead letters started"), text("#notice"));
        until("the redrive is done and the dead-letter queue drained", () -> {
            browser.navigate().refresh();
            return text("#redrives tbody .state").equals("done")
                    && text("#redrives tbody .moved").equals("4")
                    && text("#depth-ready").equals("0")
                    && text("#messages tbody td").equals("No message.");
        });
        screenshot("09-redrive-done");
        assertEquals(0, messagesViaApi(project, dead));
        assertEquals(4, messagesViaApi(project, work), "every message back in the queue it came from");
    }

    @Test
    void tenThousandQueuesArePagedSortedAndFilteredInSql() {
        String project = ConsoleProfile.LARGE;
        Db.run(
                pool,
                "INSERT INTO queues (project, name) SELECT $1, 'q-' || lpad(i::text, 5, '0')"
                        + " FROM generate_series(1, 10000) i",
                project);
        Db.run(
                pool,
                "UPDATE queues SET metadata = '{\"_dead_letter_queue\": \"q-00008\"}' WHERE project = $1 AND name = $2",
                project,
                "q-00007");
        try {
            tenThousandQueues(project);
        } finally {
            // Every later sample in this run would count them: they go, with their messages, as a queue delete does.
            Db.run(pool, "DELETE FROM messages WHERE queue_id IN (SELECT id FROM queues WHERE project = $1)", project);
            Db.run(pool, "DELETE FROM queues WHERE project = $1", project);
        }
    }

    private void tenThousandQueues(String project) {
        postViaApi(project, "q-00042", "1", "2", "3", "4", "5");
        postViaApi(project, "q-09999", "1", "2");

        open("/console/projects/" + project);
        assertEquals("10000 queues; page 1 of 200", text("#queues caption"));
        List<WebElement> rows = browser.findElements(By.cssSelector("#queues tbody tr"));
        assertEquals(50, rows.size());
        assertEquals("q-00001", rows.get(0).getAttribute("data-queue"));
        assertEquals("q-00050", rows.get(49).getAttribute("data-queue"));
        String marked = text("#queues tr[data-queue='q-00008'] .dead");
        assertTrue(marked.matches("dead-letter queue depth (–|0) · from q-00007"), marked);
        weigh("page 1 of 10,000 queues, by name");
        screenshot("11-ten-thousand-queues");

        // At a phone's width the page still fits: the table scrolls inside its box, the page itself does not.
        Dimension desk = browser.manage().window().getSize();
        browser.manage().window().setSize(new Dimension(390, 844));
        try {
            browser.navigate().refresh();
            long overflow = (Long) browser.executeScript(
                    "return document.documentElement.scrollWidth - document.documentElement.clientWidth");
            assertEquals(0, overflow, "the page is wider than a phone's screen");
            screenshot("14-phone-width");
        } finally {
            browser.manage().window().setSize(desk);
        }

        // The keyboard reaches the first queue's link from the top of the page: skip link, then the page's controls.
        browser.findElement(By.tagName("body")).sendKeys(Keys.TAB);
        assertEquals("Skip to the content", browser.switchTo().activeElement().getText());

        navigate(browser.findElement(By.id("next-page")));
        assertEquals("q-00051", text("#queues tbody tr th"));
        open("/console/projects/" + project + "?page=200");
        rows = browser.findElements(By.cssSelector("#queues tbody tr"));
        assertEquals("q-10000", rows.get(rows.size() - 1).getAttribute("data-queue"));
        weigh("page 200 of 10,000 queues, by name");

        WebElement filter = browser.findElement(By.id("filter"));
        filter.sendKeys("q-0999");
        navigate(browser.findElement(By.id("apply-filter")));
        assertEquals("10 queues; page 1 of 1", text("#queues caption"));
        assertEquals("q-09990", text("#queues tbody tr th"));

        until("sorted by ready messages, the two deepest first", () -> {
            open("/console/projects/" + project + "?sort=ready");
            List<WebElement> deepest = browser.findElements(By.cssSelector("#queues tbody tr"));
            return deepest.get(0).getAttribute("data-queue").equals("q-00042")
                    && deepest.get(0)
                            .findElement(By.cssSelector(".ready"))
                            .getText()
                            .equals("5")
                    && deepest.get(1).getAttribute("data-queue").equals("q-09999");
        });
        weigh("page 1 of 10,000 queues, by ready messages");
        screenshot("12-sorted-by-ready");
    }

    @Test
    void aThousandQueuesWithAnHourOfFlowAreWeighedAndTimed() {
        String project = ConsoleProfile.THOUSAND;
        Db.run(
                pool,
                "INSERT INTO queues (project, name) SELECT $1, 'k-' || lpad(i::text, 4, '0')"
                        + " FROM generate_series(1, 1000) i",
                project);
        // An hour of flow for every queue, changing every minute (the worst case: a sparkline point each minute).
        Db.run(
                pool,
                "INSERT INTO queue_counter_history (queue_id, minute, posted, deleted)"
                        + " SELECT id, minute, sum(p) OVER w, sum(d) OVER w FROM ("
                        + "  SELECT q.id, date_trunc('minute', now()) - m * interval '1 minute' AS minute, m,"
                        + "   (60 + 50 * sin(m / 5.0 + q.id))::bigint AS p, (55 + 45 * sin(m / 4.0 + q.id))::bigint AS d"
                        + "  FROM queues q, generate_series(0, 61) m WHERE q.project = $1) x"
                        + " WINDOW w AS (PARTITION BY id ORDER BY m DESC)",
                project);
        try {
            browser.executeCdpCommand("Network.enable", Map.of());
            browser.executeCdpCommand("Network.clearBrowserCache", Map.of());
            open("/console/projects/" + project);
            assertEquals("1000 queues; page 1 of 20", text("#queues caption"));
            assertEquals(
                    50,
                    browser.findElements(By.cssSelector("#queues .spark[data-drawn] canvas"))
                            .size());
            weigh("page 1 of 1,000 queues with an hour of flow, cold cache");
            screenshot("20-thousand-queues");
            open("/console/projects/" + project + "?page=20");
            weigh("page 20 of 1,000 queues with an hour of flow, assets cached");
        } finally {
            Db.run(
                    pool,
                    "DELETE FROM queue_counter_history WHERE queue_id IN (SELECT id FROM queues WHERE project = $1)",
                    project);
            Db.run(pool, "DELETE FROM queues WHERE project = $1", project);
        }
    }

    /**
     * Prints the weight of the page the browser shows (its HTML and every asset it loaded, decoded and on the wire) and
     * its load time, from Navigation and Resource Timing.
     */
    private static void weigh(String page) {
        Object measured = browser.executeScript("const n = performance.getEntriesByType('navigation')[0];"
                + " const r = performance.getEntriesByType('resource');"
                + " const assets = r.reduce((s, e) => s + e.decodedBodySize, 0);"
                + " const wire = r.reduce((s, e) => s + e.transferSize, 0);"
                + " return [n.decodedBodySize, assets, n.transferSize + wire, r.length,"
                + " Math.round(n.responseEnd - n.requestStart), Math.round(n.domContentLoadedEventEnd - n.startTime),"
                + " Math.round(n.loadEventEnd - n.startTime)];");
        System.out.println("Console " + page + ": [HTML bytes, asset bytes, bytes on the wire (all), assets,"
                + " request to response end ms, DOM ready ms, load ms] = " + measured);
    }

    @Test
    void delayedDispatchShowsPendingAndDeadGroupsRequeuedOrDroppedAfterConfirmation() {
        String project = ConsoleProfile.SHOWN;
        // Nothing listens on port 1: every call fails at once, and after its three attempts the group is dead.
        String failing = Base64.getUrlEncoder()
                .withoutPadding()
                .encodeToString("http://127.0.0.1:1/fail".getBytes(StandardCharsets.UTF_8));
        String key = "console-" + shortId();
        for (String path : List.of(key + "-a", key + "-b")) {
            Api.as(project)
                    .contentType("application/json")
                    .body("{\"job\": \"" + path + "\"}")
                    .post("/v3/queue/" + path + "/POST/" + failing)
                    .then()
                    .statusCode(201);
        }
        try (DispatchClock hurried = DispatchClock.hurry(pools, project)) {
            until("both groups are dead", () -> deadGroups(project, key).size() == 2);
        }
        long later = (System.currentTimeMillis() / 1000) + 3600;
        Api.as(project)
                .contentType("application/json")
                .body("{\"job\": \"later\"}")
                .post("/v3/queue/" + key + "-later/POST/" + failing + "?ontime=" + later)
                .then()
                .statusCode(201);
        List<Long> dead = deadGroups(project, key);

        open("/console/projects/" + project);
        navigate(browser.findElement(By.id("dispatch-link")));
        // Due at a whole second about an hour ahead: shown rounded, as 59 min and some seconds or as 1 h.
        String due = text("#pending tbody tr .due");
        assertTrue(due.startsWith("in 59 min") || due.equals("in 1 h"), due);
        assertEquals(
                2,
                dead.stream()
                        .filter(id -> !browser.findElements(By.cssSelector("#dead tr[data-group='" + id + "']"))
                                .isEmpty())
                        .count(),
                "both dead groups listed");
        assertFalse(text("#dead tbody tr .last-error").isEmpty(), "a dead group shows its last error");
        screenshot("13-dispatch");

        navigate(browser.findElement(By.cssSelector("#dead tr[data-group='" + dead.get(0) + "'] a.requeue")));
        assertEquals(
                "Requeue dead group " + dead.get(0) + ": call it again at once, with fresh attempts.",
                text("#question"));
        assertEquals(dead, deadGroups(project, key), "nothing requeued before the confirmation");
        navigate(browser.findElement(By.id("confirm")));
        assertEquals("The dead group was requeued: it is called again at once.", text("#notice"));
        assertFalse(deadGroups(project, key).contains(dead.get(0)));

        navigate(browser.findElement(By.cssSelector("#dead tr[data-group='" + dead.get(1) + "'] a.drop")));
        navigate(browser.findElement(By.id("confirm")));
        assertEquals("The dead group was dropped with its items.", text("#notice"));
        assertFalse(deadGroups(project, key).contains(dead.get(1)));
        assertEquals(
                0,
                browser.findElements(By.cssSelector("#dead tr[data-group='" + dead.get(1) + "']"))
                        .size());
    }

    /**
     * The project's dead groups whose merge key starts with {@code keyPrefix}: the project's other tests leave dead
     * groups of their own (a failing webhook's notifications die as its retries end, at a moment that depends on load).
     */
    private static List<Long> deadGroups(String project, String keyPrefix) {
        List<Map<String, Object>> groups = Api.as(project)
                .get("/v3/dead-groups?limit=100")
                .then()
                .statusCode(200)
                .extract()
                .path("groups");
        return groups.stream()
                .filter(group -> String.valueOf(group.get("merge_key")).startsWith(keyPrefix))
                .map(group -> Long.parseLong(String.valueOf(group.get("id"))))
                .sorted()
                .toList();
    }

    @Test
    void anotherProjectsQueueIsRefusedByUrl() {
        String other = Api.newProject();
        String queue = "secret-" + shortId();
        Api.as(other).put("/v2/queues/" + queue).then().statusCode(201);
        postViaApi(other, queue, "{\"secret\": \"do not show\"}");

        for (String path : List.of("/console/projects/" + other, "/console/projects/" + other + "/queues/" + queue)) {
            open(path);
            assertEquals("403 Forbidden", text("#failure-title"));
            assertFalse(browser.getPageSource().contains("do not show"));
            assertFalse(browser.getPageSource().contains(queue));
        }
        screenshot("10-other-project-refused");
        RestAssured.given()
                .get("/console/projects/" + other + "/queues/" + queue)
                .then()
                .statusCode(403)
                .body(containsString("not one of them"));
    }

    @Test
    void aFormWithoutItsTokenChangesNothingAndEveryPageForbidsInlineScript() {
        String project = ConsoleProfile.SHOWN;
        String queue = "guarded-" + shortId();
        Api.as(project).put("/v2/queues/" + queue).then().statusCode(201);
        postViaApi(project, queue, "{\"keep\": true}");
        String purge = "/console/projects/" + project + "/queues/" + queue + "/purge";

        RestAssured.given().formParam("csrf", "x".repeat(43)).post(purge).then().statusCode(403);
        RestAssured.given()
                .cookie(ConsoleForms.COOKIE, "a".repeat(43))
                .formParam("csrf", "b".repeat(43))
                .post(purge)
                .then()
                .statusCode(403)
                .body(containsString("reload the page"));
        RestAssured.given()
                .cookie(ConsoleForms.COOKIE, "a".repeat(43))
                .header("Sec-Fetch-Site", "cross-site")
                .formParam("csrf", "a".repeat(43))
                .post(purge)
                .then()
                .statusCode(403);
        assertEquals(1, messagesViaApi(project, queue), "no refused form purged anything");

        RestAssured.given()
                .get(purge)
                .then()
                .statusCode(200)
                .header("Content-Security-Policy", is(ConsolePages.CONTENT_SECURITY_POLICY))
                .header("Set-Cookie", containsString("HttpOnly; SameSite=Strict"));
        RestAssured.given()
                .get("/console/projects/" + project + "?page=0")
                .then()
                .statusCode(400)
                .body(containsString("page"))
                .body(containsString("10000"));
        RestAssured.given()
                .get("/console/projects/" + project + "?filter=" + "x".repeat(65))
                .then()
                .statusCode(400)
                .body(containsString("filter"))
                .body(containsString("64"));
    }

    private void open(String path) {
        browser.get(root.toString().replaceAll("/$", "") + path);
    }

    /** Clicks a link or button that leads to another page, and waits for that page. */
    private static void navigate(WebElement link) {
        navigate(link, null);
    }

    /** Follows a link or button with a key ({@code null}: a click), and waits for the page it leads to. */
    private static void navigate(WebElement link, Keys key) {
        if (key == null) {
            link.click();
        } else {
            link.sendKeys(key);
        }
        WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(10));
        wait.until(gone -> {
            try {
                link.isEnabled();
                return false;
            } catch (WebDriverException leftThePage) {
                // Stale, or its node already gone from the inspector's view of the new document.
                return true;
            }
        });
        wait.until(loaded -> "complete".equals(browser.executeScript("return document.readyState")));
    }

    private static String text(String css) {
        List<WebElement> found = browser.findElements(By.cssSelector(css));
        if (found.isEmpty()) {
            throw new AssertionError("No " + css + " on " + browser.getCurrentUrl() + ":\n" + browser.getPageSource());
        }
        return found.get(0).getText();
    }

    private static WebElement row(String queue) {
        return browser.findElement(By.cssSelector("#queues tr[data-queue='" + queue + "']"));
    }

    private static void until(String what, Supplier<Boolean> seen) {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!seen.get()) {
            if (System.nanoTime() > deadline) {
                screenshot("failed-" + what.replaceAll("[^a-z]+", "-"));
                throw new AssertionError("Not seen within 20 s: " + what);
            }
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("Interrupted while waiting for: " + what);
            }
        }
    }

    /** A screenshot of the whole page (up to 4,000 pixels high), at the width of the window. */
    private static void screenshot(String name) {
        Dimension window = browser.manage().window().getSize();
        long height = (Long) browser.executeScript("return document.documentElement.scrollHeight");
        browser.manage().window().setSize(new Dimension(window.getWidth(), (int) Math.min(4000, height + 140)));
        File taken = browser.getScreenshotAs(OutputType.FILE);
        browser.manage().window().setSize(window);
        try {
            Files.copy(taken.toPath(), SCREENSHOTS.resolve(name + ".png"), StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new AssertionError("Could not keep the screenshot " + name, e);
        }
    }

    private static void postViaApi(String project, String queue, String... bodies) {
        StringBuilder document = new StringBuilder("{\"messages\": [");
        for (int i = 0; i < bodies.length; i++) {
            document.append(i == 0 ? "" : ", ")
                    .append("{\"ttl\": 300, \"body\": ")
                    .append(bodies[i])
                    .append('}');
        }
        Api.as(project)
                .contentType("application/json")
                .body(document.append("]}").toString())
                .post("/v2/queues/" + queue + "/messages")
                .then()
                .statusCode(201);
    }

    private static int messagesViaApi(String project, String queue) {
        return Api.as(project)
                .get("/v2/queues/" + queue + "/stats")
                .then()
                .statusCode(200)
                .extract()
                .path("messages.total");
    }

    private static String shortId() {
        return UUID.randomUUID().toString().substring(0, 8);
    }
}
