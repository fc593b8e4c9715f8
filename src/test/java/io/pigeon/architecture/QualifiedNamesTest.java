package io.pigeon.architecture;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pigeon.testing.JavaSources;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Types are named by their imports, not spelled out inline: an inline {@code java.util.ArrayList} hides what a class
 * depends on from its header. The one exception is a genuine clash, where the simple name is already imported from
 * another package and Java needs one of the two qualified.
 */
class QualifiedNamesTest {

    private static final List<Path> ROOTS =
            List.of(Path.of("src/main/java"), Path.of("src/test/java"), Path.of("src/local/java"));
    private static final Pattern QUALIFIED = Pattern.compile(
            "(?<![\\w.$])((?:java|javax|jakarta|io|org|com|net)\\.(?:[a-z_][a-z0-9_]*\\.)*)([A-Z][A-Za-z0-9_]*)");
    private static final Pattern IMPORT = Pattern.compile("^import\\s+(static\\s+)?([\\w.]+)\\s*;", Pattern.MULTILINE);
    private static final Pattern HEADER_LINE = Pattern.compile("^(?:package|import)\\s[^\\n]*$", Pattern.MULTILINE);

    @Test
    void noSourceSpellsOutATypeItCouldImport() {
        List<String> offences = new ArrayList<>();
        for (Path root : ROOTS) {
            for (Path source : JavaSources.under(root)) {
                String text = JavaSources.read(source);
                Map<String, String> imported = new HashMap<>();
                Matcher imports = IMPORT.matcher(text);
                while (imports.find()) {
                    if (imports.group(1) == null) {
                        String name = imports.group(2);
                        imported.put(name.substring(name.lastIndexOf('.') + 1), name);
                    }
                }
                String code = HEADER_LINE.matcher(codeOnly(text)).replaceAll("");
                Matcher qualified = QUALIFIED.matcher(code);
                while (qualified.find()) {
                    String full = qualified.group(1) + qualified.group(2);
                    String clash = imported.get(qualified.group(2));
                    if (clash == null || clash.equals(full)) {
                        offences.add(root.relativize(source) + ": " + full);
                    }
                }
            }
        }
        assertEquals(List.of(), offences, "inline fully qualified names that an import would replace");
    }

    /** The source with comments, string and character literals and text blocks blanked out. */
    static String codeOnly(String source) {
        StringBuilder code = new StringBuilder(source.length());
        int i = 0;
        while (i < source.length()) {
            int end;
            if (source.startsWith("//", i)) {
                end = source.indexOf('\n', i);
                end = end < 0 ? source.length() : end;
            } else if (source.startsWith("/*", i)) {
                end = source.indexOf("*/", i + 2) + 2;
            } else if (source.startsWith("\"\"\"", i)) {
                end = source.indexOf("\"\"\"", i + 3);
                while (source.charAt(end - 1) == '\\') {
                    end = source.indexOf("\"\"\"", end + 1);
                }
                end += 3;
            } else if (source.charAt(i) == '"' || source.charAt(i) == '\'') {
                char quote = source.charAt(i);
                end = i + 1;
                while (source.charAt(end) != quote) {
                    end += source.charAt(end) == '\\' ? 2 : 1;
                }
                end++;
            } else {
                code.append(source.charAt(i++));
                continue;
            }
            code.append(source.substring(i, end).replaceAll("[^\\n]", " "));
            i = end;
        }
        return code.toString();
    }
}
