package io.pigeon.api.console;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.containing;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.getRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.okJson;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import io.pigeon.tenancy.OidcProfile;
import io.pigeon.tenancy.Tokens;
import io.pigeon.testing.Api;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.oidc.server.OidcWireMock;
import io.restassured.http.ContentType;
import io.restassured.specification.RequestSpecification;
import io.smallrye.jwt.build.Jwt;
import java.io.File;
import java.io.IOException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.Cookie;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebDriverException;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The console's OIDC sign-in in a real browser (Debian's Chromium, as in ConsoleBrowserTest; skipped, with the reason,
 * where it is not installed), against the mock provider of OidcProfile. That provider's own code-flow tokens carry no
 * projects claim and another audience, so this test stubs its token endpoint (the answer to a code exchange that sends
 * a PKCE verifier) with tokens for two projects of its own, and its end_session endpoint, which the mock does not
 * answer. Screenshots go to target/console-screenshots/oidc-*.png.
 */
@QuarkusTest
@TestProfile(OidcProfile.class)
class ConsoleOidcBrowserTest {

    private static final Path SCREENSHOTS = Path.of("target/console-screenshots");

    private static Chromium chromium;
    private static ChromeDriver browser;

    private final String mine = Api.newProject();
    private final String alsoMine = Api.newProject();
    private final String other = Api.newProject();

    @TestHTTPResource("/")
    URL root;

    @OidcWireMock
    WireMockServer provider;

    @BeforeAll
    static void startTheBrowser() throws IOException {
        chromium = Chromium.start("the console's OIDC browser tests");
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
    void signInSeeOnlyYourProjectsActThereAndNowhereElseThenSignOut() {
        startAfresh();
        stubTheProvider(Tokens.valid(List.of(mine, alsoMine)));
        String queue = "orders-" + shortId();
        with(mine).put("/v2/queues/" + queue).then().statusCode(201);
        String othersQueue = "secret-" + shortId();
        with(other).put("/v2/queues/" + othersQueue).then().statusCode(201);
        with(other)
                .contentType(ContentType.JSON)
                .body("{\"messages\": [{\"ttl\": 300, \"body\": {\"secret\": \"do not show\"}}]}")
                .post("/v2/queues/" + othersQueue + "/messages")
                .then()
                .statusCode(201);

        // Signing in: the console sends the browser to the provider, with a PKCE challenge.
        open("/console");
        assertTrue(browser.getCurrentUrl().contains("/auth/realms/quarkus"), browser.getCurrentUrl());
        screenshot("oidc-01-provider-login");
        LoggedRequest authorization =
                last(provider.findAll(getRequestedFor(urlPathMatching("/auth/realms/quarkus/?"))));
        assertEquals(
                "S256", authorization.queryParameter("code_challenge_method").firstValue());
        assertTrue(authorization.queryParameter("code_challenge").firstValue().matches("[A-Za-z0-9_-]{43}"));
        assertEquals("code", authorization.queryParameter("response_type").firstValue());
        assertTrue(authorization.queryParameter("redirect_uri").firstValue().endsWith("/console/signed-in"));
        browser.findElement(By.id("login")).click();
        waitFor(() -> browser.getCurrentUrl().startsWith(root.toString() + "console")
                && browser.findElements(By.cssSelector("h1")).size() == 1);
        LoggedRequest exchange = last(provider.findAll(postRequestedFor(urlPathEqualTo("/auth/realms/quarkus/token"))));
        assertTrue(exchange.getBodyAsString().contains("code_verifier="), exchange.getBodyAsString());

        // Signed in: who, no banner, only the user's projects.
        assertEquals("Choose a project", text("h1"));
        assertEquals("alice", text("#user"));
        assertTrue(browser.findElements(By.id("banner")).isEmpty(), "no \"anyone can see\" banner when signed in");
        assertFalse(browser.getPageSource().contains(other));
        assertFalse(browser.findElements(By.linkText(mine)).isEmpty());
        assertFalse(browser.findElements(By.linkText(alsoMine)).isEmpty());
        assertTrue(browser.findElements(By.id("project")).isEmpty(), "no free project field without the operator");
        screenshot("oidc-02-chooser");

        // Acting in one's project: the queue is listed, and a test message is posted through a confirmed form.
        navigate(browser.findElement(By.linkText(mine)));
        assertEquals("Queues of " + mine, text("h1"));
        navigate(browser.findElement(By.cssSelector("#queues tr[data-queue='" + queue + "'] a")));
        screenshot("oidc-03-queue");
        open("/console/projects/" + mine + "/queues/" + queue + "/post");
        WebElement body = browser.findElement(By.name("body"));
        body.clear();
        body.sendKeys("{\"from\": \"the console\"}");
        browser.findElement(By.id("ttl")).sendKeys("300");
        navigate(browser.findElement(By.cssSelector("form button[type=submit]")));
        assertTrue(browser.getPageSource().contains("The test message was posted."), browser.getPageSource());
        assertEquals(1, messages(mine, queue));

        // Another project, by URL: a 403 page, nothing shown, nothing done.
        for (String path : List.of(
                "/console?project=" + other,
                "/console/projects/" + other,
                "/console/projects/" + other + "/queues/" + othersQueue,
                "/console/projects/" + other + "/queues/" + othersQueue + "/delete")) {
            open(path);
            assertEquals("403 Forbidden", text("#failure-title"), path);
            assertTrue(text("#failure").contains("does not grant access to project " + other), text("#failure"));
            assertFalse(browser.getPageSource().contains("do not show"));
            assertTrue(browser.findElements(By.cssSelector("form[method=post]")).isEmpty());
        }
        screenshot("oidc-04-other-project-refused");
        Object refusedStatus = browser.executeAsyncScript(
                "const done = arguments[arguments.length - 1];"
                        + "fetch(arguments[0], {method: 'POST', credentials: 'same-origin', redirect: 'manual',"
                        + " headers: {'Content-Type': 'application/x-www-form-urlencoded'}, body: 'csrf=' + 'a'.repeat(43)})"
                        + ".then(r => done(r.status), e => done(String(e)));",
                "/console/projects/" + other + "/queues/" + othersQueue + "/delete");
        assertEquals(403L, refusedStatus);
        assertEquals(1, messages(other, othersQueue), "the other project's queue is untouched");

        // A form without this session's token is refused, and changes nothing.
        Object forgedStatus = browser.executeAsyncScript(
                "const done = arguments[arguments.length - 1];"
                        + "fetch(arguments[0], {method: 'POST', credentials: 'same-origin', redirect: 'manual',"
                        + " headers: {'Content-Type': 'application/x-www-form-urlencoded'}, body: 'csrf=' + 'b'.repeat(43)})"
                        + ".then(r => done(r.status), e => done(String(e)));",
                "/console/projects/" + mine + "/queues/" + queue + "/purge");
        assertEquals(403L, forgedStatus);
        assertEquals(1, messages(mine, queue), "a refused form purged nothing");
        // A cookie and field that match each other but were not issued for this session (a planted pair): refused.
        browser.manage().addCookie(new Cookie(ConsoleForms.COOKIE, "a".repeat(43), "/console"));
        Object plantedStatus = browser.executeAsyncScript(
                "const done = arguments[arguments.length - 1];"
                        + "fetch(arguments[0], {method: 'POST', credentials: 'same-origin', redirect: 'manual',"
                        + " headers: {'Content-Type': 'application/x-www-form-urlencoded'}, body: 'csrf=' + 'a'.repeat(43)})"
                        + ".then(r => r.text().then(t => done(r.status + ' ' + t)), e => done(String(e)));",
                "/console/projects/" + mine + "/queues/" + queue + "/purge");
        assertTrue(String.valueOf(plantedStatus).startsWith("403 "), String.valueOf(plantedStatus));
        assertTrue(String.valueOf(plantedStatus).contains("not issued for your current sign-in"));
        assertEquals(1, messages(mine, queue), "a planted form token purged nothing");

        // The session's cookie is the console's only: the API, a bearer-token service, does not take it (the console
        // tenant was picked by the cookie's name on any path, and /v2 answered 200 to it).
        open("/console/projects/" + mine);
        Map<String, String> session = new HashMap<>();
        for (Cookie cookie : browser.manage().getCookies()) {
            if (cookie.getName().startsWith("q_session_console")) {
                session.put(cookie.getName(), cookie.getValue());
            }
        }
        assertFalse(session.isEmpty(), "the browser holds a console session");
        given().cookies(session)
                .header("Client-ID", Api.CLIENT_ID)
                .header("X-Project-Id", mine)
                .get("/v2/queues")
                .then()
                .statusCode(401)
                .contentType(ContentType.JSON);
        given().cookies(session)
                .header("Client-ID", Api.CLIENT_ID)
                .header("X-Project-Id", mine)
                .delete("/v2/queues/" + queue)
                .then()
                .statusCode(401);
        assertEquals(1, messages(mine, queue), "the queue is still there");
        // A bearer token sent with the cookie is the one checked, as without it.
        with(mine).cookies(session).get("/v2/queues").then().statusCode(200);
        with(other)
                .cookies(session)
                .header("X-Project-Id", other)
                .get("/v2/queues")
                .then()
                .statusCode(200);

        // Signing out ends the session at the provider and here; the console asks for a sign-in again.
        navigate(browser.findElement(By.id("sign-out")));
        waitFor(() -> browser.getCurrentUrl().endsWith("/console/signed-out"));
        assertEquals("You are signed out", text("h1"));
        assertFalse(
                provider.findAll(getRequestedFor(
                                urlPathEqualTo("/auth/realms/quarkus/protocol/openid-connect/end-session")))
                        .isEmpty(),
                "RP-initiated logout at the provider's end_session_endpoint");
        screenshot("oidc-05-signed-out");
        open("/console/projects/" + mine);
        assertTrue(browser.getCurrentUrl().contains("/auth/realms/quarkus"), browser.getCurrentUrl());
        // A copy of the session cookie made before the sign-out is ended too: sent back through sign-in, on any page.
        given().cookies(session)
                .redirects()
                .follow(false)
                .get("/console/projects/" + mine)
                .then()
                .statusCode(302)
                .header("Location", containsString("/auth/realms/quarkus"));
    }

    @Test
    void theOperatorMayOpenAnyProjectAsThroughTheApi() {
        startAfresh();
        stubTheProvider(Tokens.valid(List.of(mine), "pigeon-operator"));
        String othersQueue = "theirs-" + shortId();
        with(other).put("/v2/queues/" + othersQueue).then().statusCode(201);

        open("/console");
        browser.findElement(By.id("login")).click();
        waitFor(() -> browser.getCurrentUrl().startsWith(root.toString() + "console")
                && browser.findElements(By.cssSelector("h1")).size() == 1);
        assertEquals("Choose a project", text("h1"));
        assertFalse(browser.findElements(By.linkText(mine)).isEmpty());
        browser.findElement(By.id("project")).sendKeys(other);
        navigate(browser.findElement(By.id("open-project")));
        assertEquals("Queues of " + other, text("h1"));
        assertFalse(browser.findElements(By.cssSelector("#queues tr[data-queue='" + othersQueue + "']"))
                .isEmpty());
        screenshot("oidc-06-operator");
    }

    /** A browser with no cookie of this host (cookies do not tell ports apart: the provider's are gone too). */
    private void startAfresh() {
        open("/console/signed-out");
        browser.manage().deleteAllCookies();
    }

    /** Tokens with {@code accessToken}, issued only to a code exchange that proves the PKCE verifier. */
    private void stubTheProvider(String accessToken) {
        String idToken = Jwt.issuer(OidcProfile.ISSUER)
                .subject("alice-" + shortId())
                .preferredUserName("alice")
                .audience(OidcProfile.AUDIENCE)
                .expiresIn(300)
                .jws()
                .keyId("1")
                .sign();
        provider.stubFor(post(urlPathEqualTo("/auth/realms/quarkus/token"))
                .atPriority(1)
                .withRequestBody(containing("grant_type=authorization_code"))
                .withRequestBody(containing("code_verifier="))
                .willReturn(okJson("{\"access_token\": \"" + accessToken + "\", \"id_token\": \"" + idToken
                        + "\", \"token_type\": \"Bearer\", \"expires_in\": 300}")));
        provider.stubFor(get(urlPathEqualTo("/auth/realms/quarkus/protocol/openid-connect/end-session"))
                .willReturn(aResponse()
                        .withStatus(302)
                        .withHeader("Location", "{{request.query.post_logout_redirect_uri}}")
                        .withTransformers("response-template")));
    }

    private static RequestSpecification with(String project) {
        return given().auth()
                .oauth2(Tokens.valid(List.of(project)))
                .header("Client-ID", Api.CLIENT_ID)
                .header("X-Project-Id", project)
                .accept(ContentType.JSON);
    }

    private static int messages(String project, String queue) {
        return with(project)
                .get("/v2/queues/" + queue + "/stats")
                .then()
                .statusCode(200)
                .extract()
                .path("messages.total");
    }

    private static LoggedRequest last(List<LoggedRequest> requests) {
        assertFalse(requests.isEmpty(), "the provider saw no such request");
        return requests.get(requests.size() - 1);
    }

    private void open(String path) {
        browser.get(root.toString().replaceAll("/$", "") + path);
    }

    private static void navigate(WebElement link) {
        link.click();
        WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(10));
        wait.until(gone -> {
            try {
                link.isEnabled();
                return false;
            } catch (WebDriverException leftThePage) {
                return true;
            }
        });
        wait.until(loaded -> "complete".equals(browser.executeScript("return document.readyState")));
    }

    private static void waitFor(BooleanSupplier seen) {
        new WebDriverWait(browser, Duration.ofSeconds(15)).until(ignored -> seen.getAsBoolean());
    }

    private static String text(String css) {
        List<WebElement> found = browser.findElements(By.cssSelector(css));
        if (found.isEmpty()) {
            throw new AssertionError("No " + css + " on " + browser.getCurrentUrl() + ":\n" + browser.getPageSource());
        }
        return found.get(0).getText();
    }

    private static void screenshot(String name) {
        File taken = browser.getScreenshotAs(OutputType.FILE);
        try {
            Files.copy(taken.toPath(), SCREENSHOTS.resolve(name + ".png"), StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new AssertionError("Could not keep the screenshot " + name, e);
        }
    }

    private static String shortId() {
        return UUID.randomUUID().toString().substring(0, 8);
    }
}
