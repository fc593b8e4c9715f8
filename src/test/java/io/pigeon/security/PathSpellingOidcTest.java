package io.pigeon.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.tenancy.OidcProfile;
import io.pigeon.tenancy.SignedUrls;
import io.pigeon.tenancy.Tokens;
import io.pigeon.testing.Api;
import io.pigeon.testing.Db;
import io.pigeon.testing.RawHttp;
import io.pigeon.testing.Slow;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.RestAssured;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * In OIDC mode, no spelling of a protected path gets past authentication: every endpoint, each in a dozen
 * spellings (doubled slashes, dot segments, percent-encoded letters, trailing slash, case), sent as is over a
 * socket, without a token and with another project's token. Nothing of the victim's project may be created.
 */
@QuarkusTest
@TestProfile(OidcProfile.class)
@Slow
class PathSpellingOidcTest {

    @Inject
    Pool pool;

    @Inject
    SignedUrls urls;

    private final String victim = Api.newProject();
    private final String attacker = Api.newProject();

    private Map<String, String> headers(String token, String project) {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("X-Project-Id", project);
        headers.put("Client-ID", Api.CLIENT_ID);
        headers.put("X-Roles", "admin");
        headers.put("Accept", "application/json");
        headers.put("Content-Type", "application/json");
        if (token != null) {
            headers.put("Authorization", "Bearer " + token);
        }
        return headers;
    }

    @Test
    void noSpellingOfAProtectedPathIsServedWithoutAToken() {
        List<String> failures = new ArrayList<>();
        int sent = 0;
        for (Endpoints.Call call : Endpoints.protectedCalls()) {
            for (String path : Endpoints.spellings(call.path())) {
                RawHttp.Answer answer =
                        RawHttp.send(RestAssured.port, call.method(), path, headers(null, victim), call.body());
                sent++;
                if (!Set.of(401, 404, 405).contains(answer.status()) || !answer.isErrorDocument()) {
                    failures.add(call.method() + " " + path + " -> " + answer);
                }
                if (call.method().equals("GET")) {
                    // The same GET as a websocket upgrade: authentication still comes first, no socket is opened.
                    RawHttp.Answer upgrade = RawHttp.upgrade(RestAssured.port, path, headers(null, victim));
                    sent++;
                    if (!Set.of(401, 404, 405).contains(upgrade.status()) || !upgrade.isErrorDocument()) {
                        failures.add("upgrade " + path + " -> " + upgrade);
                    }
                }
                if (path.equals(call.path().split("\\?")[0]) && answer.status() != 401) {
                    failures.add(call.method() + " " + path + " (canonical) -> " + answer + ", expected 401");
                }
            }
        }
        assertTrue(
                failures.isEmpty(),
                failures.size() + " of " + sent + " answers let a caller without a token in:\n"
                        + String.join("\n", failures.subList(0, Math.min(30, failures.size()))));
        assertNothingStoredFor(victim);
    }

    @Test
    void noSpellingOfAProtectedPathReachesAnotherProject() {
        String token = Tokens.valid(List.of(attacker));
        List<String> failures = new ArrayList<>();
        for (Endpoints.Call call : Endpoints.protectedCalls()) {
            for (String path : Endpoints.spellings(call.path())) {
                RawHttp.Answer answer =
                        RawHttp.send(RestAssured.port, call.method(), path, headers(token, victim), call.body());
                if (!Set.of(403, 404, 405).contains(answer.status()) || !answer.isErrorDocument()) {
                    failures.add(call.method() + " " + path + " -> " + answer);
                }
                if (call.method().equals("GET")) {
                    RawHttp.Answer upgrade = RawHttp.upgrade(RestAssured.port, path, headers(token, victim));
                    if (!Set.of(403, 404, 405).contains(upgrade.status()) || !upgrade.isErrorDocument()) {
                        failures.add("upgrade " + path + " -> " + upgrade);
                    }
                }
            }
        }
        assertTrue(
                failures.isEmpty(),
                failures.size() + " answers let another project's token in:\n"
                        + String.join("\n", failures.subList(0, Math.min(30, failures.size()))));
        assertNothingStoredFor(victim);
    }

    /** A pre-signed URL needs no token, and opens exactly its grant, in every spelling. */
    @Test
    void aSignedUrlOpensOnlyItsGrantInEverySpelling() {
        String owner = Api.newProject();
        SignedGrantAttack attack = new SignedGrantAttack(RestAssured.port, pool, owner);
        String subscription = attack.prepare(headers(Tokens.valid(List.of(owner)), owner));
        attack.assertHolds(attack.grants(urls, subscription));
    }

    @Test
    void theOwnersTokenIsServedInTheCanonicalSpelling() {
        String token = Tokens.valid(List.of(victim));
        RawHttp.Answer created =
                RawHttp.send(RestAssured.port, "PUT", "/v2/queues/" + Endpoints.QUEUE, headers(token, victim), "{}");
        assertEquals(201, created.status(), created.toString());
        // The router's own normalisation still serves the owner, authenticated.
        RawHttp.Answer listed = RawHttp.send(RestAssured.port, "GET", "//v2/queues", headers(token, victim), null);
        assertEquals(200, listed.status(), listed.toString());
        assertTrue(listed.body().contains(Endpoints.QUEUE), listed.toString());
    }

    @Test
    void publicDocumentsStayOpenInEverySpellingTheRouterServes() {
        for (String path : List.of("/v1/", "/v2/", "/v1/health")) {
            RawHttp.Answer answer =
                    RawHttp.send(RestAssured.port, "GET", path, Map.of("Accept", "application/json"), null);
            assertTrue(answer.status() == 200 || answer.status() == 204, path + " -> " + answer);
        }
    }

    /** The header-byte fuzz in OIDC mode: with the owner's token, another's, and none. */
    @Test
    void oddHeaderBytesAreRefusedCleanlyWhateverTheToken() {
        Map<Integer, Integer> statuses = HeaderBytesFuzz.statuses();
        List<String> failures = new ArrayList<>();
        long httpLayer = 0;
        int round = 0;
        for (String token : Arrays.asList(Tokens.valid(List.of(victim)), Tokens.valid(List.of(attacker)), null)) {
            List<HeaderBytesFuzz.Probe> probes =
                    new HeaderBytesFuzz(20261123L + round++, RestAssured.port).run(250, victim, Api.CLIENT_ID, token);
            failures.addAll(HeaderBytesFuzz.failures(probes, statuses));
            httpLayer += HeaderBytesFuzz.httpLayerRefusals(probes);
        }
        System.out.println("Path and header fuzz (OIDC): 750 requests, answers by status: " + statuses
                + ", refused by the HTTP layer itself: " + httpLayer);
        assertTrue(
                failures.isEmpty(),
                failures.size() + " bad answers, e.g.:\n"
                        + String.join("\n", failures.subList(0, Math.min(15, failures.size()))));
        assertNothingStoredFor(victim);
    }

    private void assertNothingStoredFor(String project) {
        assertEquals(
                0, Db.count(pool, "SELECT count(*) FROM queues WHERE project = $1", project), "queues of " + project);
        assertEquals(
                0, Db.count(pool, "SELECT count(*) FROM subscriptions WHERE project = $1", project), "subscriptions");
        assertEquals(0, Db.count(pool, "SELECT count(*) FROM dispatch_groups WHERE project = $1", project), "groups");
    }
}
