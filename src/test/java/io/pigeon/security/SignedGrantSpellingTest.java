package io.pigeon.security;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pigeon.tenancy.SignedUrls;
import io.pigeon.testing.Api;
import io.pigeon.testing.RawHttp;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * With authentication off, a pre-signed URL opens exactly the resources it grants: every kind of grant against
 * every protected endpoint in every spelling, and walked out of with dot segments (the OIDC-mode twin is in
 * {@link PathSpellingOidcTest}).
 */
@QuarkusTest
class SignedGrantSpellingTest {

    @Inject
    Pool pool;

    @Inject
    SignedUrls urls;

    private final String project = Api.newProject();

    private Map<String, String> owner() {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("X-Project-Id", project);
        headers.put("Client-ID", Api.CLIENT_ID);
        headers.put("Accept", "application/json");
        headers.put("Content-Type", "application/json");
        return headers;
    }

    @Test
    void aGrantOpensItsResourcesInTheirNormalSpellingAndNothingElse() {
        SignedGrantAttack attack = new SignedGrantAttack(RestAssured.port, pool, project);
        String subscription = attack.prepare(owner());
        List<SignedGrantAttack.Kind> kinds = attack.grants(urls, subscription);
        attack.assertHolds(kinds);

        // The grants still do what they grant, in the normal spelling.
        Map<String, String> read = SignedGrantAttack.headers(kinds.get(0).grant());
        RawHttp.Answer messages =
                RawHttp.send(RestAssured.port, "GET", "/v2/queues/granted/messages?echo=true", read, null);
        assertEquals(200, messages.status(), messages.toString());
        RawHttp.Answer confirmed = RawHttp.send(
                RestAssured.port,
                "PUT",
                "/v2/queues/granted/subscriptions/" + subscription + "/confirm",
                SignedGrantAttack.headers(kinds.get(2).grant()),
                "{\"confirmed\": true}");
        assertEquals(204, confirmed.status(), confirmed.toString());
    }
}
