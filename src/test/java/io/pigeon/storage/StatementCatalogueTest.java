package io.pigeon.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.pigeon.testing.JavaSources;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.RecordComponent;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Every SQL statement the code sends, whole, in {@code docs/sql/statements.sql}, so that a change to a shared fragment
 * is reviewed as the statements it changes. The statements are found in the sources (every argument of
 * {@code preparedQuery}, {@code query}, {@code executeQuery} and {@code prepareStatement}: a constant, whose value is
 * read from the loaded class) and the file must be exactly what they render to. With
 * {@code -Dpigeon.statements.write=true} the test writes the file instead.
 */
class StatementCatalogueTest {

    private static final Path SOURCES = Path.of("src/main/java");
    private static final Path CATALOGUE = Path.of("docs/sql/statements.sql");
    private static final String WRITE = "pigeon.statements.write";
    private static final String REGENERATE = "./mvnw -B -q test -Dtest=StatementCatalogueTest -D" + WRITE + "=true";

    private static final Pattern SENT = Pattern.compile("\\b(?:preparedQuery|query|executeQuery|prepareStatement)\\(");
    private static final Pattern OWN_CONSTANT = Pattern.compile("[A-Z][A-Z0-9_]*");
    /** One of two own constants chosen per call (a statement for one request, another for several). */
    private static final Pattern EITHER_CONSTANT =
            Pattern.compile(".+\\?\\s*([A-Z][A-Z0-9_]*)\\s*:\\s*([A-Z][A-Z0-9_]*)");

    private static final Pattern OTHER_CONSTANT = Pattern.compile("([A-Z][A-Za-z0-9]*)\\.([A-Z][A-Z0-9_]*)");
    /** The sweeper sends its batch deletes through one method, {@code repeat(db, STATEMENT, ...)}. */
    private static final Pattern SWEEPER_REPEAT = Pattern.compile("\\brepeat\\(\\s*db,\\s*([A-Z][A-Z0-9_]*),");

    /** Where the statements are sent from: every one must have at least one (the scan found them). */
    private static final List<String> COVERED = List.of(
            "MessageStore",
            "ClaimStore",
            "SetAsideStore",
            "PostKeyStore",
            "QueueStore",
            "SubscriptionStore",
            "DispatchStore",
            "CallMarker",
            "PoolStore",
            "FlavorStore",
            "Placements",
            "PoolClients",
            "PoolService",
            "PoolSchemas",
            "Sweeper",
            "HotTableVacuum",
            "UsageCheck",
            "QueueMetricsStore",
            "StorageHealth",
            "DatabaseProbe",
            "EndedSessionStore",
            "AccessKeyStore",
            "AccountStore",
            "SqsQueueStore",
            "ReceiptHandles",
            "SqsMessageStore");

    private static final String HEADER =
            """
            -- Every SQL statement Pigeon sends, whole, as the code sends it: the fragments a statement is composed of
            -- (FreeMessages, NotificationFanOut, QueueRows, ...) are expanded. Each entry is named Class.CONSTANT after
            -- the constant that holds it (StorageHealth.OPERATIONS.<name>: the storage health probe's operations),
            -- in package, class and constant order. The ";" that closes each entry is not part of the text sent.
            --
            -- Written from the code by StatementCatalogueTest (src/test/java/io/pigeon/storage), which fails when this
            -- file and the code differ. Do not edit it by hand: after changing a statement, regenerate it with
            --   %s
            -- and review the statements the change made here.
            --
            -- No text depends on configuration: every configured value (limits, quotas, refusal texts, batch sizes,
            -- the lease and the horizon) is a bound parameter ($n). No statement is built per call. Not listed: the
            -- schema and the functions these statements call (pigeon_refuse, dispatch_complete), which are in
            -- src/main/resources/db/migration, and the LISTEN on channel pigeon_dispatch that the PostgreSQL
            -- client's PgSubscriber sends for the dispatcher.
            """
                    .formatted(REGENERATE);

    @Test
    void theCatalogueHoldsEveryStatementAsTheCodeSendsIt() throws IOException {
        Map<String, String> statements = statementsOfTheCode();
        for (String source : COVERED) {
            assertTrue(
                    statements.keySet().stream().anyMatch(name -> name.startsWith(source + ".")),
                    "no statement found in " + source + ": " + statements.keySet());
        }
        String rendered = render(statements);
        if (Boolean.getBoolean(WRITE)) {
            Files.createDirectories(CATALOGUE.getParent());
            Files.writeString(CATALOGUE, rendered, StandardCharsets.UTF_8);
            return;
        }
        assertTrue(Files.exists(CATALOGUE), CATALOGUE + " is missing; write it with " + REGENERATE);
        String written = Files.readString(CATALOGUE, StandardCharsets.UTF_8);
        if (!written.equals(rendered)) {
            fail(CATALOGUE + " is not what the code sends (regenerate it with " + REGENERATE + "):\n"
                    + differences(entries(written), statements, written.startsWith(HEADER)));
        }
    }

    /** Every statement the code sends, by name, in package, class and constant order. */
    static Map<String, String> statementsOfTheCode() {
        Map<String, String> byClassName = new TreeMap<>();
        Map<String, String> classes = classesBySimpleName();
        List<String> unnamed = new ArrayList<>();
        for (Path source : JavaSources.under(SOURCES)) {
            String simpleName = source.getFileName().toString().replace(".java", "");
            String className = classes.get(simpleName);
            String code = withoutComments(JavaSources.read(source));
            Matcher call = SENT.matcher(code);
            while (call.find()) {
                String argument = argumentAt(code, call.end());
                if (argument.isEmpty()) {
                    continue; // a JDBC statement's executeQuery(), its text given when it was prepared
                }
                Matcher own = OWN_CONSTANT.matcher(argument);
                Matcher other = OTHER_CONSTANT.matcher(argument);
                Matcher either = EITHER_CONSTANT.matcher(argument);
                if (own.matches()) {
                    add(byClassName, className, simpleName, argument);
                } else if (either.matches()) {
                    add(byClassName, className, simpleName, either.group(1));
                    add(byClassName, className, simpleName, either.group(2));
                } else if (other.matches() && classes.containsKey(other.group(1))) {
                    add(byClassName, classes.get(other.group(1)), other.group(1), other.group(2));
                } else if (simpleName.equals("Sweeper") && argument.equals("sql")) {
                    Matcher repeated = SWEEPER_REPEAT.matcher(code);
                    while (repeated.find()) {
                        add(byClassName, className, simpleName, repeated.group(1));
                    }
                } else if (simpleName.equals("StorageHealth") && argument.equals("operation.sql()")) {
                    operations(className)
                            .forEach((operation, sql) -> byClassName.put(
                                    className + ".OPERATIONS." + operation,
                                    simpleName + ".OPERATIONS." + operation + "\n" + sql));
                } else {
                    unnamed.add(simpleName + ": " + argument);
                }
            }
        }
        assertEquals(List.of(), unnamed, "statements sent in a form the catalogue cannot name: give each a constant");
        Map<String, String> statements = new LinkedHashMap<>();
        byClassName.values().forEach(entry -> {
            int newline = entry.indexOf('\n');
            String name = entry.substring(0, newline);
            assertTrue(statements.put(name, entry.substring(newline + 1)) == null, "two statements named " + name);
        });
        return statements;
    }

    /** Records constant {@code field} of {@code className} under its full name, valued "Simple.FIELD\ntext". */
    private static void add(Map<String, String> byClassName, String className, String simpleName, String field) {
        byClassName.put(className + "." + field, simpleName + "." + field + "\n" + constant(className, field));
    }

    private static String constant(String className, String field) {
        try {
            Field constant = Class.forName(className).getDeclaredField(field);
            constant.setAccessible(true);
            Object value = constant.get(null);
            assertTrue(value instanceof String, className + "." + field + " is not a string");
            return (String) value;
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(className + "." + field + " cannot be read", e);
        }
    }

    /** The storage health probe's operations: name and SQL, in their order. */
    private static Map<String, String> operations(String className) {
        try {
            Field field = Class.forName(className).getDeclaredField("OPERATIONS");
            field.setAccessible(true);
            Map<String, String> operations = new LinkedHashMap<>();
            for (Object operation : (List<?>) field.get(null)) {
                RecordComponent[] components = operation.getClass().getRecordComponents();
                Method name = components[0].getAccessor();
                Method sql = components[1].getAccessor();
                name.setAccessible(true);
                sql.setAccessible(true);
                operations.put((String) name.invoke(operation), (String) sql.invoke(operation));
            }
            return operations;
        } catch (ReflectiveOperationException e) {
            throw new AssertionError("the operations of " + className + " cannot be read", e);
        }
    }

    /** The text between the parenthesis opened before {@code start} and the one that closes it, trimmed. */
    private static String argumentAt(String code, int start) {
        int depth = 1;
        int i = start;
        while (depth > 0) {
            char c = code.charAt(i++);
            depth += c == '(' ? 1 : c == ')' ? -1 : 0;
        }
        return code.substring(start, i - 1).strip();
    }

    static String render(Map<String, String> statements) {
        StringBuilder file = new StringBuilder(HEADER);
        statements.forEach((name, sql) ->
                file.append("\n-- name: ").append(name).append('\n').append(sql).append(";\n"));
        return file.toString();
    }

    /** The entries of a written catalogue, by name (their texts as {@link #render} wrote them). */
    static Map<String, String> entries(String written) {
        Map<String, String> entries = new LinkedHashMap<>();
        String[] parts = written.split("(?m)^-- name: ");
        for (int i = 1; i < parts.length; i++) {
            int newline = parts[i].indexOf('\n');
            String name = parts[i].substring(0, newline < 0 ? parts[i].length() : newline);
            String text = newline < 0 ? "" : parts[i].substring(newline + 1);
            text = text.endsWith(";\n\n")
                    ? text.substring(0, text.length() - 3)
                    : text.endsWith(";\n") ? text.substring(0, text.length() - 2) : text;
            entries.put(name, text);
        }
        return entries;
    }

    /** What differs, statement by statement: changed (with the first line that differs), missing, no longer sent. */
    static String differences(Map<String, String> written, Map<String, String> code, boolean headerAsWritten) {
        StringBuilder report = new StringBuilder();
        code.forEach((name, sql) -> {
            if (!written.containsKey(name)) {
                report.append("  missing from the file: ").append(name).append('\n');
            } else if (!written.get(name).equals(sql)) {
                report.append("  differs: ")
                        .append(name)
                        .append(firstDifference(written.get(name), sql))
                        .append('\n');
            }
        });
        written.keySet().stream().filter(name -> !code.containsKey(name)).forEach(name -> report.append(
                        "  in the file, no longer in the code: ")
                .append(name)
                .append('\n'));
        if (report.isEmpty()) {
            report.append(
                    headerAsWritten ? "  the order or spacing of the entries differs\n" : "  the header differs\n");
        }
        return report.toString();
    }

    private static String firstDifference(String written, String sent) {
        String[] file = written.split("\n", -1);
        String[] code = sent.split("\n", -1);
        for (int i = 0; i < Math.max(file.length, code.length); i++) {
            String inFile = i < file.length ? file[i] : "(nothing)";
            String inCode = i < code.length ? code[i] : "(nothing)";
            if (!inFile.equals(inCode)) {
                return ", line " + (i + 1) + " of the statement:\n      file: " + inFile + "\n      code: " + inCode;
            }
        }
        return "";
    }

    /** Every main class by simple name (each simple name is one class: the catalogue names statements by it). */
    private static Map<String, String> classesBySimpleName() {
        Map<String, String> classes = new TreeMap<>();
        for (Path source : JavaSources.under(SOURCES)) {
            String className =
                    SOURCES.relativize(source).toString().replace(".java", "").replace('/', '.');
            String simpleName = source.getFileName().toString().replace(".java", "");
            String known = classes.put(simpleName, className);
            assertTrue(known == null, "two classes named " + simpleName + ": " + known + ", " + className);
        }
        return classes;
    }

    /** The code without its comments; string literals and text blocks are kept as they are. */
    static String withoutComments(String code) {
        StringBuilder kept = new StringBuilder(code.length());
        int i = 0;
        while (i < code.length()) {
            if (code.startsWith("//", i)) {
                i = code.indexOf('\n', i) < 0 ? code.length() : code.indexOf('\n', i);
            } else if (code.startsWith("/*", i)) {
                i = code.indexOf("*/", i + 2) + 2;
            } else if (code.startsWith("\"\"\"", i)) {
                int end = code.indexOf("\"\"\"", i + 3);
                while (code.charAt(end - 1) == '\\') {
                    end = code.indexOf("\"\"\"", end + 1);
                }
                kept.append(code, i, end + 3);
                i = end + 3;
            } else if (code.charAt(i) == '"' || code.charAt(i) == '\'') {
                char quote = code.charAt(i);
                int end = i + 1;
                while (code.charAt(end) != quote) {
                    end += code.charAt(end) == '\\' ? 2 : 1;
                }
                kept.append(code, i, end + 1);
                i = end + 1;
            } else {
                kept.append(code.charAt(i++));
            }
        }
        return kept.toString();
    }

    @Test
    void aChangedStatementIsNamedWithItsFirstDifferentLine() {
        Map<String, String> code = Map.of("A.ONE", "SELECT 1\nFROM a", "A.TWO", "SELECT 2");
        Map<String, String> written = entries(render(Map.of("A.ONE", "SELECT 1\nFROM b", "A.OLD", "SELECT 3")));
        String report = differences(written, code, true);
        assertTrue(
                report.contains("differs: A.ONE, line 2 of the statement:\n      file: FROM b\n      code: FROM a"),
                report);
        assertTrue(report.contains("missing from the file: A.TWO"), report);
        assertTrue(report.contains("in the file, no longer in the code: A.OLD"), report);
    }

    @Test
    void anEntryReadsBackAsTheTextItWasWrittenFrom() {
        Map<String, String> statements = new LinkedHashMap<>();
        statements.put("A.ONE", "SELECT 1\n");
        statements.put("A.TWO", "SELECT 2");
        assertEquals(statements, entries(render(statements)));
    }
}
