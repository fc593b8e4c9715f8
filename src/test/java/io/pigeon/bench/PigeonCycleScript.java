package io.pigeon.bench;

import io.pigeon.claim.ClaimStatements;
import io.pigeon.message.MessageStatements;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * Pigeon's full cycle as SQL for pgbench — the ratio benchmark's ceiling: the stores' own statements (their constants,
 * so the script cannot drift from the code) bound to pgbench variables holding what Pigeon would bind for the
 * benchmark's requests, and Pigeon's session settings for pgbench's connections.
 */
final class PigeonCycleScript {

    private static final Pattern PARAMETER = Pattern.compile("\\$(\\d+)");

    private PigeonCycleScript() {}

    /** The quota parameters of the post statements: Pigeon's default limits, and a refusal text. */
    private static final String QUOTA_COUNT = "10000";

    private static final String QUOTA_TEXT = "'quota exceeded'";

    /** The post statements' last parameter: whether mailto: subscribers are sent (off, Pigeon's default). */
    private static final String MAIL_OFF = "false";

    /**
     * The cycle as a pgbench script: the stores' statements with their parameters as pgbench variables. One
     * deviation: pgbench cannot carry the claim's ten rows to the next statement, so the delete reads the
     * claimed ids from the claim's own row (its message_ids), inside the delete statement — two primary-key
     * probes more than Pigeon's delete, which gets the ids from the request.
     */
    static String script(String api, String layout) {
        String queue = ":queue";
        String claimId = "md5(:seed::text)::uuid";
        String post = api.equals("v2")
                ? bind(
                        MessageStatements.POST_CREATING_QUEUE,
                        ":project",
                        queue,
                        ":client",
                        ":ttls",
                        ":delays",
                        ":bodies",
                        ":max_post_size",
                        ":default_ttl",
                        ":document_size",
                        QUOTA_COUNT,
                        QUOTA_TEXT,
                        QUOTA_TEXT,
                        QUOTA_COUNT,
                        QUOTA_TEXT,
                        QUOTA_TEXT,
                        "false",
                        "NULL",
                        "false",
                        QUOTA_TEXT,
                        MAIL_OFF,
                        // no attributes, the queue may be created, no group, no trace context
                        "NULL",
                        "true",
                        "NULL",
                        "NULL",
                        "NULL")
                : bind(
                        MessageStatements.POST,
                        ":project",
                        queue,
                        ":client",
                        ":ttls",
                        ":bodies",
                        QUOTA_TEXT,
                        QUOTA_COUNT,
                        QUOTA_TEXT,
                        QUOTA_TEXT,
                        "false",
                        "NULL",
                        "false",
                        QUOTA_TEXT,
                        MAIL_OFF,
                        // no trace context
                        "NULL",
                        "NULL");
        String claim = bind(
                ClaimStatements.CREATE_ONE,
                ":project",
                queue,
                claimId,
                ":limit",
                ":claim_ttl",
                ":claim_grace",
                ":max_ttl");
        String delete = bind(
                MessageStatements.DELETE_BY_IDS,
                ":project",
                queue,
                "(SELECT c.message_ids FROM claims c WHERE c.queue_id = (SELECT id FROM queues WHERE project = :project AND name = "
                        + queue + ") AND c.id = " + claimId + ")");
        String queueOfClient = layout.equals("per-client") ? ":client_id + 1" : "1";
        return "\\set queue " + queueOfClient + "\n"
                + "\\set seed random(1, 9223372036854775807)\n"
                + post + ";\n" + claim + ";\n" + delete + ";\n";
    }

    /** The statement with {@code $n} replaced by the n-th argument. */
    private static String bind(String statement, String... arguments) {
        if (statement.contains(";")) {
            throw new IllegalStateException("pgbench ends a command at ';'");
        }
        Matcher parameter = PARAMETER.matcher(statement);
        StringBuilder bound = new StringBuilder();
        while (parameter.find()) {
            int index = Integer.parseInt(parameter.group(1));
            if (index > arguments.length) {
                throw new IllegalStateException("no argument for $" + index);
            }
            parameter.appendReplacement(bound, Matcher.quoteReplacement(arguments[index - 1]));
        }
        parameter.appendTail(bound);
        return bound.toString();
    }

    /** The values Pigeon would bind for the benchmark's requests, with its default configuration. */
    static Map<String, String> variables(String api, String project) {
        Map<String, String> values = new LinkedHashMap<>();
        values.put("project", project);
        values.put("client", "3381af92-2b9e-11e3-b191-71861300734c");
        values.put(
                "ttls",
                arrayLiteral(IntStream.range(0, 10).mapToObj(i -> "3600").toList(), false));
        values.put(
                "delays",
                arrayLiteral(IntStream.range(0, 10).mapToObj(i -> "NULL").toList(), false));
        // As Pigeon stores a body: Jackson's compact form of what the client sent.
        values.put(
                "bodies",
                arrayLiteral(
                        IntStream.range(0, 10)
                                .mapToObj(i -> "{\"event\":\"bench\",\"n\":" + i + ",\"pad\":\"0123456789abcdef\"}")
                                .toList(),
                        true));
        values.put("max_post_size", "262144");
        values.put("default_ttl", "3600");
        values.put("document_size", String.valueOf(v2Document().getBytes(StandardCharsets.UTF_8).length));
        values.put("limit", "10");
        values.put("claim_ttl", "60");
        values.put("claim_grace", "60");
        values.put("max_ttl", "1209600");
        return values;
    }

    private static String v2Document() {
        return IntStream.range(0, 10)
                .mapToObj(i -> "{\"ttl\": 3600, \"body\": {\"event\": \"bench\", \"n\": " + i
                        + ", \"pad\": \"0123456789abcdef\"}}")
                .collect(Collectors.joining(", ", "{\"messages\": [", "]}"));
    }

    private static String arrayLiteral(List<String> elements, boolean quoted) {
        return elements.stream()
                .map(e -> quoted ? "\"" + e.replace("\\", "\\\\").replace("\"", "\\\"") + "\"" : e)
                .collect(Collectors.joining(",", "{", "}"));
    }

    /**
     * The session settings of Pigeon's own connections, read from its application.properties, as
     * {@code PGOPTIONS}: pgbench's statements are then planned as they are in Pigeon.
     */
    static String sessionSettings() throws IOException {
        String prefix = "quarkus.datasource.reactive.additional-properties.";
        Properties properties = new Properties();
        try (var in = Files.newInputStream(Path.of("src/main/resources/application.properties"))) {
            properties.load(in);
        }
        return properties.stringPropertyNames().stream()
                .filter(name -> name.startsWith(prefix) && !name.equals(prefix + "application_name"))
                .sorted()
                .map(name -> "-c " + name.substring(prefix.length()) + "=" + properties.getProperty(name))
                .collect(Collectors.joining(" "));
    }
}
