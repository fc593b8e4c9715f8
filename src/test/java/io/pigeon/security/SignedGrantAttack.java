package io.pigeon.security;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pigeon.tenancy.SignedUrls;
import io.pigeon.testing.Db;
import io.pigeon.testing.RawHttp;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Predicate;
import org.junit.jupiter.api.Assertions;

/**
 * Pre-signed URLs as an attacker holds them: each kind of grant Pigeon hands out (a share of a queue's messages for
 * GET, a share of all three resources for every method, a webhook's confirmation grant), sent to every protected
 * endpoint in every spelling of {@link Endpoints#spellings} and walked out of with dot segments after the granted
 * path ({@code ..}, {@code %2e%2e}, {@code .%2e}). Only the granted resources, in their one normal spelling, may be
 * served; the project's other queues, their messages, metadata and subscriptions must not change. A fuzz of the
 * grants' headers follows ({@link #fuzz}).
 */
final class SignedGrantAttack {

    static final String GRANTED = "granted";
    private static final List<String> METHODS = List.of("DELETE", "GET", "HEAD", "PATCH", "POST", "PUT");

    /** A grant and what it may reach (a canonical method and path), as the attacker's oracle. */
    record Kind(String name, SignedUrls.Grant grant, Predicate<Endpoints.Call> inside) {}

    private final int port;
    private final Pool pool;
    private final String project;

    SignedGrantAttack(int port, Pool pool, String project) {
        this.port = port;
        this.pool = pool;
        this.project = project;
    }

    /**
     * Fills the project as a victim: queue {@value Endpoints#QUEUE} with metadata, messages (one claimed) and a
     * subscription holding credentials in its post_headers, and the granted queue with a subscription of its own;
     * answers the granted queue's subscription id. {@code owner} are the headers the project's own calls carry.
     */
    String prepare(Map<String, String> owner) {
        for (String queue : List.of(Endpoints.QUEUE, GRANTED)) {
            String base = "/v2/queues/" + queue;
            expect(201, "PUT", base, owner, "{\"_max_claim_count\": 5, \"owner\": \"payroll\"}");
            expect(
                    201,
                    "POST",
                    base + "/messages",
                    owner,
                    "{\"messages\": [{\"ttl\": 600, \"body\": \"salary\"}, " + "{\"ttl\": 600, \"body\": \"bonus\"}]}");
            expect(201, "POST", base + "/claims?limit=1", owner, "{\"ttl\": 600, \"grace\": 60}");
        }
        expect(
                201,
                "POST",
                "/v2/queues/" + Endpoints.QUEUE + "/subscriptions",
                owner,
                "{\"subscriber\": \"mailto:payroll@example.com\", \"ttl\": 3600, "
                        + "\"options\": {\"post_headers\": {\"Authorization\": \"Basic c2VjcmV0\"}}}");
        RawHttp.Answer created = expect(
                201,
                "POST",
                "/v2/queues/" + GRANTED + "/subscriptions",
                owner,
                "{\"subscriber\": \"mailto:granted@example.com\", \"ttl\": 3600}");
        return created.body()
                .replaceAll(".*\"subscription_id\": *\"([^\"]+)\".*", "$1")
                .trim();
    }

    private RawHttp.Answer expect(int status, String method, String path, Map<String, String> headers, String body) {
        RawHttp.Answer answer = RawHttp.send(port, method, path, headers, body);
        assertEquals(status, answer.status(), method + " " + path + " -> " + answer);
        return answer;
    }

    /** The grants of {@code project} on queue {@value #GRANTED}, the last one confirming its subscription. */
    List<Kind> grants(SignedUrls urls, String subscriptionId) {
        Instant expires = Instant.now().plusSeconds(3600);
        String queue = "/v2/queues/" + GRANTED;
        String confirm = queue + "/subscriptions/" + subscriptionId + "/confirm";
        return List.of(
                new Kind(
                        "GET messages",
                        urls.sign(List.of(queue + "/messages"), List.of("GET"), project, expires),
                        call -> call.method().equals("GET") && under(call, queue + "/messages")),
                new Kind(
                        "every method on messages, claims and subscriptions",
                        urls.sign(
                                List.of(queue + "/messages", queue + "/claims", queue + "/subscriptions"),
                                METHODS,
                                project,
                                expires),
                        call -> (under(call, queue + "/messages")
                                        || under(call, queue + "/claims")
                                        || under(call, queue + "/subscriptions"))
                                && !call.path().endsWith("/confirm")),
                new Kind(
                        "confirmation",
                        urls.sign(List.of(confirm), List.of("PUT"), project, expires),
                        call -> call.method().equals("PUT") && call.path().equals(confirm)));
    }

    private static boolean under(Endpoints.Call call, String path) {
        String bare = call.path().split("\\?")[0];
        return bare.equals(path) || bare.startsWith(path + "/");
    }

    /**
     * Every protected call on the victim queue and on the granted queue, in every spelling, and every call reached
     * by walking up out of each granted path: the answers that served something outside the grant.
     */
    List<String> run(List<Kind> kinds) {
        List<String> failures = new ArrayList<>();
        for (Kind kind : kinds) {
            List<Endpoints.Call> calls = new ArrayList<>(Endpoints.protectedCalls());
            Endpoints.protectedCalls().stream()
                    .filter(call -> call.path().contains("/" + Endpoints.QUEUE))
                    .map(call -> new Endpoints.Call(
                            call.method(), call.path().replace("/" + Endpoints.QUEUE, "/" + GRANTED), call.body()))
                    .forEach(calls::add);
            for (Endpoints.Call call : calls) {
                boolean inside = kind.inside().test(call);
                for (String path : Endpoints.spellings(call.path())) {
                    boolean canonical = path.equals(call.path());
                    check(kind, call.method(), path, call.body(), inside && canonical, failures);
                }
                for (String granted : kind.grant().paths()) {
                    for (String walked : walksOutOf(granted, call.path())) {
                        check(kind, call.method(), walked, call.body(), false, failures);
                    }
                }
            }
        }
        return failures;
    }

    /**
     * A fuzz of the grants' headers: every protected call in a random spelling, with the headers of a random grant
     * of which one is changed (odd bytes inserted, another path or method added, the expiry or project swapped).
     * A changed grant is no grant: nothing may be served, nothing may answer 5xx, every refusal is the error
     * document.
     */
    List<String> fuzz(List<Kind> kinds, long seed, int requests) {
        Random random = new Random(seed);
        List<Endpoints.Call> calls = Endpoints.protectedCalls();
        List<String> failures = new ArrayList<>();
        for (int n = 0; n < requests; n++) {
            Endpoints.Call call = calls.get(random.nextInt(calls.size()));
            if (random.nextBoolean()) {
                call = new Endpoints.Call(
                        call.method(), call.path().replace("/" + Endpoints.QUEUE, "/" + GRANTED), call.body());
            }
            List<String> spellings = Endpoints.spellings(call.path());
            String path = spellings.get(random.nextInt(spellings.size()));
            Map<String, String> headers =
                    headers(kinds.get(random.nextInt(kinds.size())).grant());
            List<String> signed = List.of("URL-Signature", "URL-Expires", "URL-Methods", "URL-Paths", "X-Project-Id");
            String changed = signed.get(random.nextInt(signed.size()));
            String value = headers.get(changed);
            headers.put(
                    changed,
                    switch (random.nextInt(4)) {
                        case 0 -> {
                            // Inside the value: at its ends, a tab would be trimmed as white space and change nothing.
                            int at = 1 + random.nextInt(value.length() - 1);
                            yield value.substring(0, at) + oddBytes(random) + value.substring(at);
                        }
                        case 1 -> value + ","
                                + List.of(
                                                "/v2/queues/" + Endpoints.QUEUE + "/messages",
                                                "/",
                                                "",
                                                "..",
                                                ".*",
                                                "/v1/queues",
                                                "GET",
                                                "*",
                                                "DELETE")
                                        .get(random.nextInt(9));
                        case 2 -> List.of(
                                        "",
                                        "None",
                                        "*",
                                        "2099-01-01T00:00:00",
                                        "0".repeat(64),
                                        value.substring(1),
                                        "k:" + value)
                                .get(random.nextInt(7));
                        default -> value.repeat(2 + random.nextInt(3));
                    });
            RawHttp.Answer answer = RawHttp.send(port, call.method(), path, headers, call.body());
            if (answer.status() < 400
                    || answer.status() >= 500
                    || !answer.isErrorDocument() && !HeaderBytesFuzz.isHttpLayerRefusal(answer)) {
                failures.add(changed + " changed: " + call.method() + " " + path + " -> " + answer);
            }
        }
        return failures;
    }

    /** One to four bytes no valid header value holds (CR and LF excluded: they would end the line). */
    private static String oddBytes(Random random) {
        StringBuilder odd = new StringBuilder();
        for (int i = 1 + random.nextInt(4); i > 0; i--) {
            int b;
            do {
                b = random.nextBoolean() ? random.nextInt(0x20) : 0x7f + random.nextInt(0x81);
            } while (b == '\r' || b == '\n');
            odd.append((char) b);
        }
        return odd.toString();
    }

    /** {@code target} reached from below {@code granted} through dot segments, in three spellings of them. */
    private static List<String> walksOutOf(String granted, String target) {
        int depth = granted.split("/").length - 1;
        List<String> walks = new ArrayList<>();
        for (String up : List.of("/..", "/%2e%2e", "/.%2E")) {
            walks.add(granted + up.repeat(depth) + target);
            walks.add(granted + "/x" + up.repeat(depth + 1) + target);
        }
        return walks;
    }

    private void check(Kind kind, String method, String path, String body, boolean mayServe, List<String> failures) {
        RawHttp.Answer answer = RawHttp.send(port, method, path, headers(kind.grant()), body);
        boolean refused = answer.status() >= 400 && answer.status() < 500 && answer.isErrorDocument();
        if (!mayServe && !refused) {
            failures.add(kind.name() + ": " + method + " " + path + " -> " + answer);
        }
        if (mayServe && answer.status() >= 500) {
            failures.add(kind.name() + " (inside the grant): " + method + " " + path + " -> " + answer);
        }
    }

    static Map<String, String> headers(SignedUrls.Grant grant) {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("X-Project-Id", grant.project());
        headers.put("Client-ID", "3381af92-2b9e-11e3-b191-71861300734c");
        headers.put("Accept", "application/json");
        headers.put("Content-Type", "application/json");
        headers.put("URL-Signature", grant.signature());
        headers.put("URL-Expires", grant.expires());
        headers.put("URL-Methods", String.join(",", grant.methods()));
        headers.put("URL-Paths", String.join(",", grant.paths()));
        return headers;
    }

    /** What the project holds outside the granted queue: queues, metadata, messages, claims, subscriptions. */
    String victimState() {
        StringBuilder state = new StringBuilder();
        for (Row row : Db.run(
                pool,
                "SELECT q.name, q.metadata::text, "
                        + "(SELECT count(*) FROM messages m WHERE m.queue_id = q.id), "
                        + "(SELECT count(*) FROM messages m WHERE m.queue_id = q.id AND m.claim_id IS NOT NULL), "
                        + "(SELECT count(*) FROM claims c WHERE c.queue_id = q.id) "
                        + "FROM queues q WHERE q.project = $1 AND q.name <> $2 ORDER BY q.name",
                project,
                GRANTED)) {
            state.append(row.getString(0))
                    .append(' ')
                    .append(row.getString(1))
                    .append(" messages=")
                    .append(row.getLong(2))
                    .append(" claimed=")
                    .append(row.getLong(3))
                    .append(" claims=")
                    .append(row.getLong(4))
                    .append('\n');
        }
        for (Row row : Db.run(
                pool,
                "SELECT id, source, subscriber, options::text, confirmed, ttl FROM subscriptions "
                        + "WHERE project = $1 AND source <> $2 ORDER BY id",
                project,
                GRANTED)) {
            state.append("subscription ")
                    .append(row.getLong(0))
                    .append(' ')
                    .append(row.getString(1))
                    .append(' ')
                    .append(row.getString(2))
                    .append(' ')
                    .append(row.getString(3))
                    .append(" confirmed=")
                    .append(row.getBoolean(4))
                    .append(" ttl=")
                    .append(row.getInteger(5))
                    .append('\n');
        }
        state.append("groups=")
                .append(Db.count(pool, "SELECT count(*) FROM dispatch_groups WHERE project = $1", project));
        return state.toString();
    }

    /** Runs the attack and asserts nothing outside the grants was served and the victim's state is unchanged. */
    void assertHolds(List<Kind> kinds) {
        String before = victimState();
        List<String> failures = run(kinds);
        failures.addAll(fuzz(kinds, 20261125L, 400));
        Assertions.assertTrue(
                failures.isEmpty(),
                failures.size()
                        + " answers served something outside their grant:\n"
                        + String.join("\n", failures.subList(0, Math.min(30, failures.size()))));
        assertEquals(before, victimState(), "the project's other queues changed");
    }
}
