package io.pigeon.api.console;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.claim.FifoGroups;
import io.pigeon.testing.Api;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.RestAssured;
import io.restassured.http.ContentType;
import java.io.File;
import java.io.IOException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;

/**
 * A queue's groups in the console, in a real browser (as {@link ConsoleBrowserTest}): its ordering, and on a fifo queue
 * the groups live claims hold and each group's oldest waiting message, with group names that would run script if the
 * page wrote them as HTML shown as text; a bounded list that says it is cut; another project's queue refused as every
 * other page of it is.
 */
@QuarkusTest
@TestProfile(ConsoleProfile.class)
class ConsoleGroupsBrowserTest {

    /** A group name that is an image whose error handler marks the page: it must be text, and run nothing. */
    private static final String IMAGE = "<img/src=x/onerror=document.title='pwned'>";
    /** A group name that would end an attribute and open an element. */
    private static final String QUOTES = "\"'><b>bold</b>&amp;";

    private static final Path SCREENSHOTS = Path.of("target/console-screenshots");

    private static Chromium chromium;
    private static ChromeDriver browser;

    @TestHTTPResource("/")
    URL root;

    @BeforeAll
    static void startTheBrowser() throws IOException {
        chromium = Chromium.start("the console's group pages");
        browser = chromium.driver;
    }

    @AfterAll
    static void stopTheBrowser() throws IOException {
        if (chromium != null) {
            chromium.close();
        }
    }

    @Test
    void aFifoQueueShowsItsBlockedGroupsAndEachGroupsOldestWaitingMessageAsText() {
        String project = ConsoleProfile.SHOWN;
        String queue = "fifo-" + shortId();
        create(project, queue, "fifo");
        List<String> first = post(project, queue, message(IMAGE, 1), message(QUOTES, 2), message("plain", 3));
        List<String> second = post(project, queue, message(IMAGE, 4), message(QUOTES, 5));
        // Two claims of one message each: the oldest of IMAGE, then the oldest of QUOTES (IMAGE is held).
        String imageClaim = claimOne(project, queue);
        String quotesClaim = claimOne(project, queue);

        open("/console/projects/" + project + "/queues/" + queue);
        assertEquals("fifo", text("#ordering"));
        assertFalse("pwned".equals(browser.getTitle()), "a group name ran as HTML");
        assertTrue(browser.findElements(By.cssSelector("#blocked-groups img, #waiting-groups img, #blocked-groups b"))
                .isEmpty());

        List<List<String>> blocked = rows("#blocked-groups tbody tr");
        assertEquals(2, blocked.size(), blocked.toString());
        // By group name, byte order: '"' (0x22) before '<' (0x3c).
        assertEquals(QUOTES, blocked.get(0).get(0));
        assertEquals("1", blocked.get(0).get(1));
        assertEquals(quotesClaim, blocked.get(0).get(2));
        assertEquals(IMAGE, blocked.get(1).get(0));
        assertEquals(imageClaim, blocked.get(1).get(2));

        List<List<String>> waiting = rows("#waiting-groups tbody tr");
        assertEquals(3, waiting.size(), waiting.toString());
        assertEquals(
                List.of(QUOTES, second.get(1), "yes"),
                List.of(
                        waiting.get(0).get(0),
                        waiting.get(0).get(1),
                        waiting.get(0).get(3)));
        assertEquals(
                List.of(IMAGE, second.get(0), "yes"),
                List.of(
                        waiting.get(1).get(0),
                        waiting.get(1).get(1),
                        waiting.get(1).get(3)));
        assertEquals(
                List.of("plain", first.get(2), "no"),
                List.of(
                        waiting.get(2).get(0),
                        waiting.get(2).get(1),
                        waiting.get(2).get(3)));
        assertTrue(browser.findElements(By.id("groups-cut")).isEmpty(), "nothing was left out");
        assertFalse("pwned".equals(browser.getTitle()));
        screenshotOfTheGroups("groups");

        // Released, QUOTES's first message is free again before the sweeper touches it: it is the group's oldest
        // waiting message once more, and the group is no longer blocked.
        Api.as(project)
                .delete("/v2/queues/" + queue + "/claims/" + quotesClaim)
                .then()
                .statusCode(204);
        open("/console/projects/" + project + "/queues/" + queue);
        List<String> stillBlocked = rows("#blocked-groups tbody tr").stream()
                .map(cells -> cells.get(0))
                .toList();
        assertEquals(List.of(IMAGE), stillBlocked);
        List<String> quotes = rows("#waiting-groups tbody tr").get(0);
        assertEquals(List.of(QUOTES, first.get(1), "no"), List.of(quotes.get(0), quotes.get(1), quotes.get(3)));
    }

    @Test
    void aQueueWithMoreGroupsThanShownSaysSo() {
        String project = ConsoleProfile.SHOWN;
        String queue = "many-" + shortId();
        create(project, queue, "fifo");
        int groups = FifoGroups.SHOWN + 5;
        for (int from = 0; from < groups; from += 10) {
            List<String> messages = new ArrayList<>();
            for (int g = from; g < Math.min(groups, from + 10); g++) {
                messages.add(message("g" + (1000 + g), g));
            }
            post(project, queue, messages.toArray(String[]::new));
        }
        open("/console/projects/" + project + "/queues/" + queue);
        assertEquals(FifoGroups.SHOWN, rows("#waiting-groups tbody tr").size());
        assertTrue(text("#groups-cut").contains("first " + FifoGroups.SHOWN + " groups"), text("#groups-cut"));
        assertEquals("g1000", rows("#waiting-groups tbody tr").get(0).get(0));
    }

    @Test
    void aQueueOfAnotherOrderingShowsItAndNoGroups() {
        String project = ConsoleProfile.SHOWN;
        String none = "none-" + shortId();
        Api.as(project).put("/v2/queues/" + none).then().statusCode(201);
        post(project, none, message("a", 1));
        open("/console/projects/" + project + "/queues/" + none);
        assertEquals("none", text("#ordering"));
        assertTrue(browser.findElements(By.id("waiting-groups")).isEmpty());

        String fair = "fair-" + shortId();
        create(project, fair, "fair");
        open("/console/projects/" + project + "/queues/" + fair);
        assertEquals("fair", text("#ordering"));
        assertTrue(browser.findElements(By.id("blocked-groups")).isEmpty());
    }

    @Test
    void anotherProjectsFifoQueueIsRefusedAsItsOtherPagesAre() {
        String other = Api.newProject();
        String queue = "secret-" + shortId();
        create(other, queue, "fifo");
        post(other, queue, message("secret-group", 1));
        claimOne(other, queue);
        open("/console/projects/" + other + "/queues/" + queue);
        assertEquals("403 Forbidden", text("#failure-title"));
        assertFalse(browser.getPageSource().contains("secret-group"));
        RestAssured.given()
                .get("/console/projects/" + other + "/queues/" + queue)
                .then()
                .statusCode(403);
        // A fifo queue that does not exist in a shown project: 404, as for any queue.
        RestAssured.given()
                .get("/console/projects/" + ConsoleProfile.SHOWN + "/queues/absent-" + shortId())
                .then()
                .statusCode(404);
    }

    private static void create(String project, String queue, String ordering) {
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"_ordering\": \"" + ordering + "\"}")
                .put("/v2/queues/" + queue)
                .then()
                .statusCode(201);
    }

    /** A message of {@code group} as a post's document holds it, the group escaped as a JSON string. */
    private static String message(String group, int n) {
        return "{\"ttl\": 300, \"body\": " + n + ", \"group\": \"" + group.replace("\"", "\\\"") + "\"}";
    }

    /** Posts the messages; their ids, in order. */
    private static List<String> post(String project, String queue, String... messages) {
        List<String> hrefs = Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"messages\": [" + String.join(", ", messages) + "]}")
                .post("/v2/queues/" + queue + "/messages")
                .then()
                .statusCode(201)
                .extract()
                .jsonPath()
                .getList("resources", String.class);
        return hrefs.stream()
                .map(href -> href.substring(href.lastIndexOf('/') + 1))
                .toList();
    }

    /** Claims one message; the claim's id. */
    private static String claimOne(String project, String queue) {
        String href = Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"ttl\": 300, \"grace\": 60}")
                .post("/v2/queues/" + queue + "/claims?limit=1")
                .then()
                .statusCode(201)
                .extract()
                .header("Location");
        return href.substring(href.lastIndexOf('/') + 1);
    }

    /** The page from its ordering section down, kept as docs/console shows it (target/console-screenshots/). */
    private static void screenshotOfTheGroups(String name) {
        browser.executeScript("document.getElementById('ordering').closest('section').scrollIntoView()");
        File taken = browser.getScreenshotAs(OutputType.FILE);
        try {
            Files.createDirectories(SCREENSHOTS);
            Files.copy(taken.toPath(), SCREENSHOTS.resolve(name + ".png"), StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new AssertionError("Could not keep the screenshot " + name, e);
        }
    }

    private void open(String path) {
        browser.get(root.toString().replaceAll("/$", "") + path);
    }

    private static String text(String css) {
        List<WebElement> found = browser.findElements(By.cssSelector(css));
        if (found.isEmpty()) {
            throw new AssertionError("No " + css + " on " + browser.getCurrentUrl() + ":\n" + browser.getPageSource());
        }
        return found.get(0).getText();
    }

    /** The cells' texts of each row the selector finds, as the browser renders them. */
    private static List<List<String>> rows(String css) {
        return browser.findElements(By.cssSelector(css)).stream()
                .map(row -> row.findElements(By.tagName("td")).stream()
                        .map(WebElement::getText)
                        .toList())
                .toList();
    }

    private static String shortId() {
        return UUID.randomUUID().toString().substring(0, 8);
    }
}
