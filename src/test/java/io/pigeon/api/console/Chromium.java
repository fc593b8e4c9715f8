package io.pigeon.api.console;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * Debian's Chromium, headless, driven through Debian's chromedriver for the browser tests (the console's, and the
 * cross-origin socket's in io.pigeon.api.ws): nothing is
 * downloaded (the driver is named, so Selenium Manager never runs), the browser reaches nothing but the test's server,
 * and each start has a new empty profile, removed at {@link #close}. Its console log is kept for the tests to read.
 */
public final class Chromium implements AutoCloseable {

    static final Path BINARY = Path.of("/usr/bin/chromium");
    static final Path DRIVER = Path.of("/usr/bin/chromedriver");

    public final ChromeDriver driver;
    private final Path profile;

    private Chromium(ChromeDriver driver, Path profile) {
        this.driver = driver;
        this.profile = profile;
    }

    /**
     * Starts the browser; when Chromium or its driver is not installed, the calling test class is skipped (a JUnit
     * assumption) with a message saying that {@code tests} are skipped and how to install them.
     */
    public static Chromium start(String tests) throws IOException {
        return start(tests, new String[0]);
    }

    /** As {@link #start(String)}, with more command-line arguments for the browser. */
    public static Chromium start(String tests, String... arguments) throws IOException {
        Assumptions.assumeTrue(
                Files.isExecutable(BINARY) && Files.isExecutable(DRIVER),
                BINARY + " or " + DRIVER + " is not installed (Debian's chromium and chromium-driver; .ci/run installs"
                        + " them as root): " + tests + " are skipped");
        Path profile = Files.createTempDirectory("pigeon-console-chromium");
        ChromeOptions options = new ChromeOptions();
        options.setBinary(BINARY.toFile());
        options.addArguments(
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-dev-shm-usage",
                "--window-size=1280,900",
                "--user-data-dir=" + profile);
        options.addArguments(arguments);
        options.setCapability("goog:loggingPrefs", Map.of("browser", "ALL"));
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(new File(DRIVER.toString()))
                .usingAnyFreePort()
                .build();
        ChromeDriver driver = new ChromeDriver(service, options);
        driver.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(30));
        return new Chromium(driver, profile);
    }

    @Override
    public void close() throws IOException {
        driver.quit();
        try (var paths = Files.walk(profile)) {
            paths.sorted(Comparator.reverseOrder())
                    .forEach(path -> path.toFile().delete());
        }
    }
}
