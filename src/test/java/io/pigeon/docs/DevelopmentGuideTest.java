package io.pigeon.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.testing.JavaSources;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * docs/development.md and the test sources agree on what a developer plans with: the table of test profiles (each
 * profile and the classes that use it, and how many Quarkus starts the fast loop makes), the list of tests tagged slow,
 * and the failsafe checks ({@code *IT}) it describes. The guide drifted within days when nothing checked it.
 */
class DevelopmentGuideTest {

    private static final Path GUIDE = Path.of("docs", "development.md");
    private static final Path TESTS = Path.of("src/test/java");

    private static final String PROFILES_SECTION = "### Add a test without adding a Quarkus start";
    private static final String SLOW_SECTION = "### The fast loop and the slow tag";
    private static final String CHECKS_SECTION = "### What the suite checks beyond single requests";

    private static final Pattern TICKED = Pattern.compile("`([A-Za-z0-9_.]+)`");
    private static final Pattern CLASS = Pattern.compile(
            "\\bclass\\s+(\\w+)(?:\\s+extends\\s+([\\w.]+))?(?:\\s+implements\\s+([\\w.,\\s]+?))?\\s*\\{");
    private static final Pattern TEST_PROFILE = Pattern.compile("@TestProfile\\(\\s*([\\w.]+)\\.class\\s*\\)");
    private static final Pattern QUARKUS_TEST = Pattern.compile("@QuarkusTest\\b(?!\\w)");
    private static final Pattern RESOURCE =
            Pattern.compile("@(?:WithTestResource|QuarkusTestResource)\\(([^)]*)\\)", Pattern.DOTALL);
    private static final Pattern STARTS = Pattern.compile("`\\./mvnw test` starts Quarkus (\\d+) times");
    private static final Pattern ANNOTATION = Pattern.compile("\\A\\s*@[\\w.]+(?:\\([^)]*\\))?");
    private static final Pattern MODIFIERS =
            Pattern.compile("\\A\\s*(?:(?:public|protected|private|static|final|abstract)\\s+)*");
    private static final Pattern METHOD = Pattern.compile("\\A[\\w<>\\[\\],.? ]+?\\s+(\\w+)\\s*\\(");

    /** A test source: its top-level class's name and its code without comments. */
    private record Source(String name, String code) {}

    @Test
    void theProfileTableListsEveryProfileWithTheClassesThatUseIt() throws IOException {
        Map<String, Set<String>> documented = new TreeMap<>();
        for (List<String> row : tableRows(section(PROFILES_SECTION))) {
            List<String> names = ticked(row.get(0));
            assertEquals(1, names.size(), "one profile per row: " + row);
            documented.put(names.get(0), new TreeSet<>(ticked(row.get(2))));
        }
        assertEquals(
                List.of(),
                profileDifferences(profileUses(), documented),
                "the profiles of " + GUIDE + " and their classes (" + PROFILES_SECTION
                        + "), against the @TestProfile annotations of the test classes");
    }

    @Test
    void theFastLoopStartsQuarkusAsOftenAsTheGuideSays() throws IOException {
        Matcher stated = STARTS.matcher(section(PROFILES_SECTION).replaceAll("\\s+", " "));
        assertTrue(stated.find(), GUIDE + " says how often `./mvnw test` starts Quarkus: " + STARTS.pattern());
        Set<String> configurations = fastLoopConfigurations();
        assertEquals(
                Integer.parseInt(stated.group(1)),
                configurations.size(),
                "the distinct Quarkus configurations of the fast loop: " + configurations);
    }

    @Test
    void theSlowListNamesEveryTestTaggedSlow() throws IOException {
        Set<String> documented = new TreeSet<>();
        for (List<String> row : tableRows(section(SLOW_SECTION))) {
            documented.addAll(ticked(row.get(0)));
        }
        assertEquals(
                List.of(),
                differences(slowTests(), documented),
                "the tests tagged slow (io.pigeon.testing.Slow), as " + GUIDE
                        + " lists them: a class by its name, a method as Class.method");
    }

    @Test
    void everyFailsafeCheckIsDescribedAndNoneThatDoesNotExist() throws IOException {
        Set<String> checks = new TreeSet<>();
        for (Source source : sources()) {
            if (source.name().endsWith("IT")) {
                checks.add(source.name());
            }
        }
        assertTrue(checks.size() > 3, "the *IT classes were read: " + checks);
        Set<String> described = itNames(section(CHECKS_SECTION));
        assertEquals(
                List.of(), differences(checks, described), "the failsafe checks (*IT) described in " + CHECKS_SECTION);
        Set<String> named = itNames(Files.readString(GUIDE, StandardCharsets.UTF_8));
        named.removeAll(checks);
        assertEquals(Set.of(), named, "*IT classes " + GUIDE + " names that do not exist");
    }

    /** What the code has and the guide does not, and what the guide names and the code does not have. */
    private static List<String> differences(Set<String> code, Set<String> guide) {
        List<String> differences = new ArrayList<>();
        code.stream()
                .filter(name -> !guide.contains(name))
                .forEach(name -> differences.add("not in the guide: " + name));
        guide.stream()
                .filter(name -> !code.contains(name))
                .forEach(name -> differences.add("not in the code: " + name));
        return differences;
    }

    /** {@link #differences} of the profiles, then of each profile's classes. */
    private static List<String> profileDifferences(Map<String, Set<String>> code, Map<String, Set<String>> guide) {
        List<String> differences = new ArrayList<>(differences(code.keySet(), guide.keySet()));
        code.forEach((profile, classes) -> {
            if (guide.containsKey(profile)) {
                differences(classes, guide.get(profile))
                        .forEach(one -> differences.add(profile + " is used by a class " + one));
            }
        });
        return differences;
    }

    /** Each profile, as the guide names it (a nested one as Outer.Inner), and the test classes that use it. */
    private static Map<String, Set<String>> profileUses() {
        List<Source> sources = sources();
        Map<String, String> profiles = profiles(sources);
        assertTrue(profiles.size() > 3, "the profiles were read: " + profiles);
        Map<String, Set<String>> uses = new TreeMap<>();
        profiles.keySet().forEach(profile -> uses.put(profile, new TreeSet<>()));
        for (Source source : sources) {
            Matcher profile = TEST_PROFILE.matcher(source.code());
            while (profile.find()) {
                uses.get(named(profile.group(1), profiles)).add(source.name());
            }
        }
        return uses;
    }

    /**
     * The profile classes, by the name the guide gives them, each with its simple name: the classes that implement
     * QuarkusTestProfile, and those that extend one.
     */
    private static Map<String, String> profiles(List<Source> sources) {
        Map<String, String> profiles = new TreeMap<>();
        boolean grown = true;
        while (grown) {
            grown = false;
            for (Source source : sources) {
                Matcher declared = CLASS.matcher(source.code());
                while (declared.find()) {
                    String simple = declared.group(1);
                    String parent = declared.group(2);
                    String interfaces = declared.group(3) == null ? "" : declared.group(3);
                    boolean profile = interfaces.matches("(?s).*\\bQuarkusTestProfile\\b.*")
                            || parent != null && profiles.containsValue(simpleName(parent));
                    String name = simple.equals(source.name()) ? simple : source.name() + "." + simple;
                    if (profile && profiles.put(name, simple) == null) {
                        grown = true;
                    }
                }
            }
        }
        return profiles;
    }

    /** The profile an annotation names ({@code Outer.Inner}, or a simple name). */
    private static String named(String reference, Map<String, String> profiles) {
        if (profiles.containsKey(reference)) {
            return reference;
        }
        String simple = simpleName(reference);
        return profiles.entrySet().stream()
                .filter(profile -> profile.getValue().equals(simple))
                .map(Map.Entry::getKey)
                .findFirst()
                .orElseThrow(
                        () -> new AssertionError("@TestProfile names no profile class of the tests: " + reference));
    }

    /**
     * The distinct Quarkus configurations that {@code ./mvnw test} starts: the default one, each profile, each set of
     * test resources restricted to a class, and each QuarkusUnitTest or QuarkusComponentTest class; none used only by
     * classes tagged slow, which the fast loop leaves out.
     */
    private static Set<String> fastLoopConfigurations() {
        List<Source> sources = sources();
        Map<String, String> profiles = profiles(sources);
        Set<String> configurations = new TreeSet<>();
        Set<String> slow = slowTests();
        for (Source source : sources) {
            if (slow.contains(source.name())) {
                continue;
            }
            String code = source.code();
            if (code.contains("QuarkusUnitTest") || code.contains("@QuarkusComponentTest")) {
                configurations.add(source.name() + " (its own application)");
            }
            if (!QUARKUS_TEST.matcher(code).find()) {
                continue;
            }
            Matcher profile = TEST_PROFILE.matcher(code);
            String configuration = profile.find() ? named(profile.group(1), profiles) : "the default";
            List<String> restricted = new ArrayList<>();
            Matcher resource = RESOURCE.matcher(code);
            while (resource.find()) {
                String arguments = resource.group(1).replaceAll("\\s+", "");
                if (arguments.contains("RESTRICTED_TO_CLASS") || arguments.contains("restrictToAnnotatedClass=true")) {
                    restricted.add(arguments);
                }
            }
            configurations.add(restricted.isEmpty() ? configuration : configuration + " with " + restricted);
        }
        return configurations;
    }

    /** The tests tagged slow: a class by its simple name, a method as {@code Class.method}. */
    private static Set<String> slowTests() {
        Set<String> slow = new TreeSet<>();
        for (Source source : sources()) {
            String code = source.code();
            int at = code.indexOf("@Slow");
            while (at >= 0) {
                String rest = code.substring(at + "@Slow".length());
                Matcher annotation = ANNOTATION.matcher(rest);
                while (annotation.find()) {
                    rest = rest.substring(annotation.end());
                    annotation = ANNOTATION.matcher(rest);
                }
                Matcher modifiers = MODIFIERS.matcher(rest);
                rest = modifiers.find() ? rest.substring(modifiers.end()) : rest;
                Matcher declared = CLASS.matcher(rest);
                Matcher method = METHOD.matcher(rest);
                if (declared.lookingAt()) {
                    slow.add(declared.group(1));
                } else if (method.find()) {
                    slow.add(source.name() + "." + method.group(1));
                } else {
                    throw new AssertionError("@Slow on neither a class nor a method in " + source.name());
                }
                at = code.indexOf("@Slow", at + 1);
            }
        }
        return slow;
    }

    /** Every test source but this one, without comments (a comment may mention what the code does not do). */
    private static List<Source> sources() {
        List<Source> sources = new ArrayList<>();
        for (Path file : JavaSources.under(TESTS)) {
            String name = file.getFileName().toString().replace(".java", "");
            if (!name.equals(DevelopmentGuideTest.class.getSimpleName())) {
                sources.add(new Source(name, JavaSources.withoutComments(JavaSources.read(file))));
            }
        }
        return sources;
    }

    private static String simpleName(String reference) {
        return reference.substring(reference.lastIndexOf('.') + 1);
    }

    /** The text of the guide under {@code heading}, up to the next heading. */
    private static String section(String heading) throws IOException {
        String guide = Files.readString(GUIDE, StandardCharsets.UTF_8);
        int start = guide.indexOf("\n" + heading + "\n");
        assertTrue(start >= 0, GUIDE + " has no section " + heading);
        Matcher next = Pattern.compile("\n#{1,3} ").matcher(guide);
        int end = next.find(start + heading.length() + 1) ? next.start() : guide.length();
        return guide.substring(start + heading.length() + 1, end);
    }

    /** The cells of each body row of the first table in {@code text} (its header and rule left out). */
    private static List<List<String>> tableRows(String text) {
        List<List<String>> rows = new ArrayList<>();
        boolean inTable = false;
        boolean header = true;
        for (String line : text.split("\n")) {
            String row = line.strip();
            if (!row.startsWith("|")) {
                if (inTable) {
                    break;
                }
                continue;
            }
            inTable = true;
            if (header || row.startsWith("| ---")) {
                header = false;
                continue;
            }
            List<String> cells = new ArrayList<>();
            for (String cell : row.substring(1, row.length() - 1).split("\\|")) {
                cells.add(cell.strip());
            }
            rows.add(cells);
        }
        assertTrue(!rows.isEmpty(), "a table was read");
        return rows;
    }

    private static List<String> ticked(String cell) {
        List<String> names = new ArrayList<>();
        Matcher name = TICKED.matcher(cell);
        while (name.find()) {
            names.add(name.group(1));
        }
        return names;
    }

    private static Set<String> itNames(String text) {
        Set<String> names = new TreeSet<>();
        Matcher name = Pattern.compile("`(\\w+IT)`").matcher(text);
        while (name.find()) {
            names.add(name.group(1));
        }
        return names;
    }
}
