package io.pigeon.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * docs/architecture.md's table of packages names every package there is, and no package that is gone: the top-level
 * packages under io.pigeon and the packages of the web layer under io.pigeon.api. The guide left out {@code api/ws}
 * and the console for weeks when nothing checked it.
 */
class ArchitectureGuideTest {

    private static final Path GUIDE = Path.of("docs", "architecture.md");
    private static final Path SOURCES = Path.of("src/main/java/io/pigeon");
    private static final Pattern TICKED = Pattern.compile("`([a-z0-9/]+)`");

    @Test
    void thePackageTableNamesEveryPackageAndOnlyThose() throws IOException {
        Set<String> listed = new TreeSet<>();
        boolean inTable = false;
        for (String line : Files.readAllLines(GUIDE)) {
            if (line.startsWith("| package |")) {
                inTable = true;
                continue;
            }
            if (inTable && !line.startsWith("|")) {
                break;
            }
            if (inTable && !line.startsWith("| ---")) {
                Matcher ticked = TICKED.matcher(line.split("\\|")[1]);
                while (ticked.find()) {
                    listed.add(ticked.group(1));
                }
            }
        }
        assertEquals(packages(), listed, "packages in the table of " + GUIDE + " against " + SOURCES);
    }

    /** Every top-level package, and every package directly under {@code api}. */
    private static Set<String> packages() throws IOException {
        Set<String> packages = new TreeSet<>();
        try (Stream<Path> top = Files.list(SOURCES)) {
            top.filter(Files::isDirectory)
                    .forEach(dir -> packages.add(dir.getFileName().toString()));
        }
        try (Stream<Path> api = Files.list(SOURCES.resolve("api"))) {
            api.filter(Files::isDirectory).forEach(dir -> packages.add("api/" + dir.getFileName()));
        }
        return packages;
    }
}
