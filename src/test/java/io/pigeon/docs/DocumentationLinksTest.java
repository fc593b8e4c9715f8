package io.pigeon.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every relative link of the shipped documentation (README.md, CHANGELOG.md, docs/**.md) leads to a file that exists
 * and, with an anchor, to a heading of that file; no document sends readers to {@code ../shared}, which does not ship.
 * Plain JUnit (no application start), so it costs a fraction of a second. The checker itself is tested first on
 * small documents written here, so that a checker that finds nothing cannot pass for a clean tree.
 */
class DocumentationLinksTest {

    @Test
    void everyLinkOfTheShippedDocumentationLeadsSomewhere() {
        DocumentationLinks checker = new DocumentationLinks(Path.of(""));
        List<Path> documents = checker.documents();
        assertTrue(documents.size() > 2, "docs/ was read: " + documents);
        assertTrue(checker.linkCount(documents) > 20, "links were found in " + documents);
        List<String> problems = checker.problems(documents);
        assertEquals("", String.join("\n", problems), problems.size() + " broken links or mentions");
    }

    @Test
    void aMissingFileAMissingAnchorAndAnOutsideMentionAreEachReported(@TempDir Path root) throws IOException {
        write(
                root,
                "docs/a.md",
                """
                # Title

                ## Set-up: two commands

                See [b](b.md), [gone](gone.md), [b's part](b.md#part-two), [no part](b.md#part-three),
                [here](#set-up-two-commands), [not here](#set-up), [up](../README.md), [web](https://example.org/x.md),
                [out](../../elsewhere.md) and ../shared/notes.
                """);
        write(root, "docs/b.md", """
                # B

                ## Part two
                """);
        write(root, "README.md", "[docs](docs/a.md#title)\n");
        write(root, "CHANGELOG.md", "# Changelog\n");
        DocumentationLinks checker = new DocumentationLinks(root);

        List<String> problems = checker.problems(checker.documents());

        assertEquals(
                List.of(
                        "docs/a.md:7: mentions ../shared, which does not ship",
                        "docs/a.md:5: gone.md: no such file",
                        "docs/a.md:5: b.md#part-three: no heading of docs/b.md has this anchor",
                        "docs/a.md:6: #set-up: no heading of docs/a.md has this anchor",
                        "docs/a.md:7: ../../elsewhere.md: points outside the repository"),
                problems);
    }

    @Test
    void aMissingDocumentIsReported(@TempDir Path root) throws IOException {
        write(root, "README.md", "# Pigeon\n");
        DocumentationLinks checker = new DocumentationLinks(root);

        assertEquals(List.of("CHANGELOG.md: missing"), checker.problems(checker.documents()));
    }

    @Test
    void linksInsideCodeAreNotLinks() {
        List<String> lines = List.of("```sh", "[x](nowhere.md)", "```", "`[y](nowhere.md)` and [z](real.md)");

        assertEquals(List.of(new DocumentationLinks.Link("real.md", 3)), DocumentationLinks.links(lines));
    }

    @Test
    void headingsGiveGitHubsSlugs() {
        List<String> lines = List.of(
                "# Encryption at rest (`_enable_encrypt_messages`)",
                "## Set-up: two commands",
                "## FAQ",
                "## FAQ",
                "### The [v2 API](api/v2.md) *in short*",
                "Setext heading",
                "==============",
                "```",
                "# not a heading",
                "```",
                "<a id=\"Kept-As-Written\"></a>");

        assertEquals(
                Set.of(
                        "encryption-at-rest-_enable_encrypt_messages",
                        "set-up-two-commands",
                        "faq",
                        "faq-1",
                        "the-v2-api-in-short",
                        "setext-heading",
                        "kept-as-written"),
                DocumentationLinks.anchorsOf(lines));
    }

    private static void write(Path root, String name, String text) throws IOException {
        Path file = root.resolve(name);
        Files.createDirectories(file.getParent());
        Files.writeString(file, text);
    }
}
