package io.pigeon.security;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;

/**
 * Every protected endpoint of the API with a request that would succeed for its owner, and the spellings of a
 * path that a router may take as the same resource.
 */
final class Endpoints {

    /** One request: method, canonical path (with query), body (null for none). */
    record Call(String method, String path, String body) {
        @Override
        public String toString() {
            return method + " " + path;
        }
    }

    static final String QUEUE = "spelled";
    static final String MESSAGE_ID = "000000000000000000000001";
    static final String CLAIM_ID = "3381af92-2b9e-11e3-b191-71861300734c";
    static final String SERVICE = Base64.getUrlEncoder()
            .withoutPadding()
            .encodeToString("http://127.0.0.1:9/x".getBytes(StandardCharsets.UTF_8));

    private Endpoints() {}

    /** Every method of every protected resource (the public ones are the discovery documents and /v1/health). */
    static List<Call> protectedCalls() {
        String v1 = "/v1/queues/" + QUEUE;
        String v2 = "/v2/queues/" + QUEUE;
        String v11 = "/v1.1/queues/" + QUEUE;
        String topic = "/v2/topics/" + QUEUE;
        String v1Messages = "[{\"ttl\": 60, \"body\": 1}]";
        String v2Messages = "{\"messages\": [{\"ttl\": 60, \"body\": 1}]}";
        String claim = "{\"ttl\": 60, \"grace\": 60}";
        String release = "{\"ids\": [\"" + MESSAGE_ID + "\"]}";
        List<Call> calls = new ArrayList<>(List.of(
                new Call("GET", "/v1/queues", null),
                new Call("PUT", v1, null),
                new Call("GET", v1, null),
                new Call("DELETE", v1, null),
                new Call("GET", v1 + "/metadata", null),
                new Call("PUT", v1 + "/metadata", "{\"a\": 1}"),
                new Call("GET", v1 + "/stats", null),
                new Call("POST", v1 + "/messages", v1Messages),
                new Call("GET", v1 + "/messages", null),
                new Call("DELETE", v1 + "/messages?ids=" + MESSAGE_ID, null),
                new Call("GET", v1 + "/messages/" + MESSAGE_ID, null),
                new Call("DELETE", v1 + "/messages/" + MESSAGE_ID, null),
                new Call("POST", v1 + "/claims", claim),
                new Call("GET", v1 + "/claims/" + CLAIM_ID, null),
                new Call("PATCH", v1 + "/claims/" + CLAIM_ID, claim),
                new Call("DELETE", v1 + "/claims/" + CLAIM_ID, null),
                new Call("GET", "/v2/ping", null),
                new Call("GET", "/v2/health", null),
                new Call("GET", "/v2/queues", null),
                new Call("PUT", v2, "{}"),
                new Call("GET", v2, null),
                new Call("DELETE", v2, null),
                new Call("GET", v2 + "/stats", null),
                new Call("POST", v2 + "/purge", "{}"),
                new Call("POST", v2 + "/share", "{}"),
                new Call("POST", v2 + "/messages", v2Messages),
                new Call("GET", v2 + "/messages", null),
                new Call("DELETE", v2 + "/messages?pop=1", null),
                new Call("GET", v2 + "/messages/" + MESSAGE_ID, null),
                new Call("POST", v2 + "/claims", claim),
                new Call("GET", v2 + "/claims/" + CLAIM_ID, null),
                new Call("POST", v2 + "/claims/" + CLAIM_ID + "/release", release),
                new Call("POST", v2 + "/subscriptions", "{\"subscriber\": \"mailto:a@example.com\"}"),
                new Call("GET", v2 + "/subscriptions", null),
                new Call("GET", v2 + "/subscriptions/1", null),
                new Call("DELETE", v2 + "/subscriptions/1", null),
                new Call("PUT", v2 + "/subscriptions/1/confirm", "{\"confirmed\": true}"),
                new Call("POST", v2 + "/redrive", "{\"rate\": 10}"),
                new Call("GET", v2 + "/redrive", null),
                new Call("GET", v2 + "/redrive/" + CLAIM_ID, null),
                new Call("DELETE", v2 + "/redrive/" + CLAIM_ID, null),
                new Call("POST", "/v2/access-keys", null),
                new Call("GET", "/v2/access-keys", null),
                new Call("DELETE", "/v2/access-keys/PGNKAAAAAAAAAAAAAAAA", null),
                new Call("GET", "/v2/topics", null),
                new Call("PUT", topic, "{}"),
                new Call("GET", topic, null),
                new Call("PATCH", topic, "[]"),
                new Call("DELETE", topic, null),
                new Call("GET", topic + "/stats", null),
                new Call("POST", topic + "/purge", "{}"),
                new Call("POST", topic + "/messages", v2Messages),
                new Call("GET", topic + "/messages", null),
                new Call("GET", topic + "/messages/" + MESSAGE_ID, null),
                new Call("DELETE", topic + "/messages?ids=" + MESSAGE_ID, null),
                new Call("POST", topic + "/subscriptions", "{\"subscriber\": \"mailto:a@example.com\"}"),
                new Call("GET", topic + "/subscriptions", null),
                new Call("DELETE", topic + "/subscriptions/1", null),
                new Call("PUT", topic + "/subscriptions/1/confirm", "{\"confirmed\": true}"),
                new Call("GET", "/v2/pools", null),
                new Call("PUT", "/v2/pools/p1", "{\"uri\": \"postgresql://h/db\", \"weight\": 1}"),
                new Call("GET", "/v2/pools/p1", null),
                new Call("PATCH", "/v2/pools/p1", "{\"weight\": 2}"),
                new Call("DELETE", "/v2/pools/p1", null),
                new Call("GET", "/v2/flavors", null),
                new Call("PUT", "/v2/flavors/f1", "{\"pool_list\": [\"p1\"]}"),
                new Call("GET", "/v2/flavors/f1", null),
                new Call("PATCH", "/v2/flavors/f1", "{\"pool_list\": [\"p1\"]}"),
                new Call("DELETE", "/v2/flavors/f1", null),
                new Call("GET", "/v1/pools", null),
                new Call("PUT", "/v1/pools/p1", "{\"uri\": \"postgresql://h/db\", \"weight\": 1}"),
                new Call("DELETE", "/v1/pools/p1", null),
                new Call("GET", "/v1.1/ping", null),
                new Call("GET", "/v1.1/health", null),
                new Call("GET", "/v1.1/queues", null),
                new Call("PUT", v11, null),
                new Call("GET", v11, null),
                new Call("DELETE", v11, null),
                new Call("GET", v11 + "/stats", null),
                new Call("POST", v11 + "/messages", v2Messages),
                new Call("GET", v11 + "/messages", null),
                new Call("DELETE", v11 + "/messages?pop=1", null),
                new Call("GET", v11 + "/messages/" + MESSAGE_ID, null),
                new Call("POST", v11 + "/claims", claim),
                new Call("GET", v11 + "/claims/" + CLAIM_ID, null),
                new Call("POST", v11 + "/claims/" + CLAIM_ID + "/release", release),
                new Call("POST", "/v3/queue/k/POST/" + SERVICE, "{\"a\": 1}"),
                new Call("GET", "/v3/queue/k/POST/" + SERVICE, null),
                new Call("DELETE", "/v3/queue/k/POST/" + SERVICE, null),
                new Call("GET", "/v3/dead-groups", null),
                new Call("POST", "/v3/dead-groups/1/requeue", null),
                new Call("DELETE", "/v3/dead-groups/1", null),
                new Call("GET", "/q/metrics/queues", null),
                new Call("GET", "/q/metrics/queues?project=" + QUEUE, null)));
        return calls;
    }

    /**
     * The same path spelled as an attacker would (sent as is, {@code curl --path-as-is}): doubled slashes,
     * dot segments, percent-encoded letters, a trailing slash, another case.
     */
    static List<String> spellings(String pathAndQuery) {
        int q = pathAndQuery.indexOf('?');
        String path = q < 0 ? pathAndQuery : pathAndQuery.substring(0, q);
        String query = q < 0 ? "" : pathAndQuery.substring(q);
        List<String> spelled = new ArrayList<>();
        spelled.add(path);
        spelled.add("/" + path);
        spelled.add("//" + path);
        spelled.add("/x/.." + path);
        spelled.add("/." + path);
        spelled.add(path.replaceFirst("^/v", "/%76"));
        spelled.add(path.replaceFirst("^/v", "/%56"));
        spelled.add(path.replaceFirst("^(/v[0-9])/", "$1//"));
        spelled.add(path.replaceFirst("^(/v[0-9])/", "$1/./"));
        spelled.add(path.replaceFirst("^(/v[0-9])/([a-z-]+)", "$1/%" + "HEX" + "$2"));
        spelled.add(path + "/");
        spelled.add(path.toUpperCase(Locale.ROOT));
        spelled.add(path.replaceFirst("^/v", "/V"));
        List<String> result = new ArrayList<>();
        for (String s : spelled) {
            result.add(encodeMarker(s) + query);
        }
        return result.stream().distinct().toList();
    }

    /** Replaces the {@code %HEX} marker by the percent-encoding of the letter after it. */
    private static String encodeMarker(String spelled) {
        int at = spelled.indexOf("%HEX");
        if (at < 0) {
            return spelled;
        }
        char letter = spelled.charAt(at + 4);
        return spelled.substring(0, at) + String.format("%%%02x", (int) letter) + spelled.substring(at + 5);
    }
}
