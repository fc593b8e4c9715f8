package io.pigeon.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Reads Markdown files of a repository and lists every relative link that leads nowhere: a file that does not exist,
 * or an anchor that no heading of the target file produces under GitHub's slug rules. External links (any
 * {@code scheme:}) are not followed. A mention of {@code ../shared} is a problem too: that directory does not ship
 * with the repository.
 */
final class DocumentationLinks {

    /** Text no shipped document may mention: it names a directory outside the repository. */
    static final String OUTSIDE_DIRECTORY = "../shared";

    private static final Pattern FENCE = Pattern.compile("^ {0,3}(`{3,}|~{3,})");
    private static final Pattern ATX_HEADING = Pattern.compile("^ {0,3}#{1,6}(?:[ \\t]+(.*?))?(?:[ \\t]+#+)?[ \\t]*$");
    private static final Pattern SETEXT_UNDERLINE = Pattern.compile("^ {0,3}(=+|-+)[ \\t]*$");
    private static final Pattern CODE_SPAN = Pattern.compile("(`+)(.+?)\\1");
    /** {@code [text](target "title")} and {@code ![alt](target)}; the text may hold one level of brackets. */
    private static final Pattern INLINE_LINK = Pattern.compile(
            "!?\\[(?:[^\\[\\]]|\\[[^\\[\\]]*\\])*\\]\\(\\s*(<[^>]*>|[^\\s)]*)(?:\\s+\"[^\"]*\")?\\s*\\)");

    private static final Pattern REFERENCE_DEFINITION = Pattern.compile("^ {0,3}\\[[^\\]]+\\]:\\s*(<[^>]*>|\\S+)");
    private static final Pattern HTML_ANCHOR =
            Pattern.compile("<a\\s+(?:name|id)=\"([^\"]+)\"", Pattern.CASE_INSENSITIVE);
    private static final Pattern SCHEME = Pattern.compile("^[A-Za-z][A-Za-z0-9+.-]*:");
    /** What GitHub drops from a heading's text: everything but letters, marks, digits, connectors, space and '-'. */
    private static final Pattern NOT_IN_SLUG = Pattern.compile("[^\\p{L}\\p{M}\\p{N}\\p{Pc} -]");

    private final Path root;
    private final Map<Path, Set<String>> anchorsByFile = new HashMap<>();

    DocumentationLinks(Path root) {
        this.root = root.toAbsolutePath().normalize();
    }

    /** The Markdown files that ship as documentation: README.md, CHANGELOG.md and every docs/**.md, sorted. */
    List<Path> documents() {
        List<Path> documents = new ArrayList<>(List.of(root.resolve("README.md"), root.resolve("CHANGELOG.md")));
        Path docs = root.resolve("docs");
        if (Files.isDirectory(docs)) {
            try (Stream<Path> files = Files.walk(docs)) {
                files.filter(file -> file.toString().endsWith(".md")).sorted().forEach(documents::add);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return documents;
    }

    /** Every problem of {@code documents}, one line each: the file, its line, and what is wrong. */
    List<String> problems(List<Path> documents) {
        List<String> problems = new ArrayList<>();
        for (Path document : documents) {
            Path file = document.toAbsolutePath().normalize();
            if (!Files.isRegularFile(file)) {
                problems.add(root.relativize(file) + ": missing");
                continue;
            }
            List<String> lines = read(file);
            for (int i = 0; i < lines.size(); i++) {
                if (lines.get(i).contains(OUTSIDE_DIRECTORY)) {
                    problems.add(where(file, i) + ": mentions " + OUTSIDE_DIRECTORY + ", which does not ship");
                }
            }
            for (Link link : links(lines)) {
                String problem = check(file, link.target());
                if (problem != null) {
                    problems.add(where(file, link.line()) + ": " + link.target() + ": " + problem);
                }
            }
        }
        return problems;
    }

    /** How many links {@code documents} hold, external ones included (to show that the files were read). */
    int linkCount(List<Path> documents) {
        return documents.stream()
                .filter(Files::isRegularFile)
                .mapToInt(file -> links(read(file)).size())
                .sum();
    }

    private String where(Path file, int lineIndex) {
        return root.relativize(file) + ":" + (lineIndex + 1);
    }

    /** Null when {@code target}, written in {@code file}, leads somewhere; else what is wrong. */
    private String check(Path file, String target) {
        if (target.isEmpty() || SCHEME.matcher(target).find()) {
            return null;
        }
        int hash = target.indexOf('#');
        String pathPart = hash < 0 ? target : target.substring(0, hash);
        String anchor = hash < 0 ? null : target.substring(hash + 1);
        int query = pathPart.indexOf('?');
        if (query >= 0) {
            pathPart = pathPart.substring(0, query);
        }
        Path linked;
        if (pathPart.isEmpty()) {
            linked = file;
        } else {
            String decoded = URLDecoder.decode(pathPart.replace("+", "%2B"), StandardCharsets.UTF_8);
            linked = (decoded.startsWith("/")
                            ? root.resolve(decoded.substring(1))
                            : file.getParent().resolve(decoded))
                    .normalize();
            if (!linked.startsWith(root)) {
                return "points outside the repository";
            }
            if (!Files.exists(linked)) {
                return "no such file";
            }
        }
        if (anchor == null || anchor.isEmpty()) {
            return null;
        }
        if (!Files.isRegularFile(linked) || !linked.toString().endsWith(".md")) {
            return "an anchor into a file that is not Markdown";
        }
        String wanted = URLDecoder.decode(anchor, StandardCharsets.UTF_8).toLowerCase(Locale.ROOT);
        return anchors(linked).contains(wanted)
                ? null
                : "no heading of " + root.relativize(linked) + " has this anchor";
    }

    /** The anchors a Markdown file offers: its headings' slugs (duplicates numbered) and explicit HTML anchors. */
    Set<String> anchors(Path file) {
        return anchorsByFile.computeIfAbsent(file, any -> anchorsOf(read(file)));
    }

    static Set<String> anchorsOf(List<String> lines) {
        Set<String> anchors = new LinkedHashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        boolean[] code = inCode(lines);
        for (int i = 0; i < lines.size(); i++) {
            if (code[i]) {
                continue;
            }
            String line = lines.get(i);
            Matcher anchor = HTML_ANCHOR.matcher(line);
            while (anchor.find()) {
                anchors.add(anchor.group(1).toLowerCase(Locale.ROOT));
            }
            String heading = null;
            Matcher atx = ATX_HEADING.matcher(line);
            if (atx.matches()) {
                heading = atx.group(1) == null ? "" : atx.group(1);
            } else if (i + 1 < lines.size()
                    && !code[i + 1]
                    && !line.isBlank()
                    && SETEXT_UNDERLINE.matcher(lines.get(i + 1)).matches()
                    && !isListOrQuote(line)) {
                heading = line.strip();
            }
            if (heading != null) {
                String slug = slug(heading);
                int count = seen.merge(slug, 1, Integer::sum);
                anchors.add(count == 1 ? slug : slug + "-" + (count - 1));
            }
        }
        return anchors;
    }

    /**
     * GitHub's anchor for a heading: the rendered text (links keep their text, code spans their content), lower-cased,
     * with every character other than letters, digits, '-', '_' and spaces dropped, and each space turned into '-'.
     */
    static String slug(String heading) {
        String text = INLINE_LINK.matcher(heading).replaceAll(link -> {
            String whole = link.group();
            return Matcher.quoteReplacement(whole.substring(whole.indexOf('[') + 1, whole.lastIndexOf("](")));
        });
        text = CODE_SPAN.matcher(text).replaceAll(span -> Matcher.quoteReplacement(span.group(2)));
        text = text.replaceAll("<[^>]+>", "");
        return NOT_IN_SLUG
                .matcher(text.strip().toLowerCase(Locale.ROOT))
                .replaceAll("")
                .replace(' ', '-');
    }

    /** A link found in a document: its target as written, and the line (from 0) it is on. */
    record Link(String target, int line) {}

    static List<Link> links(List<String> lines) {
        List<Link> links = new ArrayList<>();
        boolean[] code = inCode(lines);
        for (int i = 0; i < lines.size(); i++) {
            if (code[i]) {
                continue;
            }
            String line = CODE_SPAN.matcher(lines.get(i)).replaceAll("");
            Matcher definition = REFERENCE_DEFINITION.matcher(line);
            if (definition.find()) {
                links.add(new Link(unbracket(definition.group(1)), i));
                continue;
            }
            Matcher inline = INLINE_LINK.matcher(line);
            while (inline.find()) {
                links.add(new Link(unbracket(inline.group(1)), i));
            }
        }
        return links;
    }

    private static String unbracket(String target) {
        return target.startsWith("<") && target.endsWith(">") ? target.substring(1, target.length() - 1) : target;
    }

    /** Which lines are inside fenced code blocks (the fences included). */
    private static boolean[] inCode(List<String> lines) {
        boolean[] code = new boolean[lines.size()];
        String open = null;
        for (int i = 0; i < lines.size(); i++) {
            Matcher fence = FENCE.matcher(lines.get(i));
            if (open == null) {
                if (fence.find()) {
                    open = fence.group(1);
                    code[i] = true;
                }
            } else {
                code[i] = true;
                if (fence.find()
                        && fence.group(1).charAt(0) == open.charAt(0)
                        && fence.group(1).length() >= open.length()
                        && lines.get(i).strip().equals(fence.group(1).strip())) {
                    open = null;
                }
            }
        }
        return code;
    }

    private static boolean isListOrQuote(String line) {
        String stripped = line.stripLeading();
        return stripped.startsWith("- ")
                || stripped.startsWith("* ")
                || stripped.startsWith("> ")
                || stripped.startsWith("|");
    }

    private static List<String> read(Path file) {
        try {
            return Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
