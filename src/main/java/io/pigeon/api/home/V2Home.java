package io.pigeon.api.home;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pigeon.api.ApiVersion;
import java.util.List;
import java.util.Set;

/**
 * The v2 home document in two forms: what everyone is shown, and what the operator is shown besides (Zaqar's
 * admin block). Both list exactly the resources Pigeon serves: Zaqar's, with the topics added (Zaqar's lists none),
 * and the admin entries (health, pools, flavors) for the operator only.
 */
public final class V2Home {

    /** Zaqar's admin entries (shown to the operator role only). */
    private static final Set<String> ADMIN = Set.of("rel/health", "rel/pools", "rel/pool", "rel/flavors", "rel/flavor");
    /** The v2 resources that v1.1 does not have (Zaqar's v1.1 home document leaves them out). */
    private static final List<String> V2_ONLY = List.of(
            "rel/pools",
            "rel/pool",
            "rel/flavors",
            "rel/flavor",
            "rel/queue_share",
            "rel/queue_purge",
            "rel/message_get",
            "rel/subscriptions_get",
            "rel/subscriptions_post",
            "rel/subscription",
            "rel/subscription_patch",
            "rel/topics",
            "rel/topic",
            "rel/topic_stats",
            "rel/topic_purge",
            "rel/topic_messages",
            "rel/topic_subscriptions");

    private static final String PUBLIC;
    private static final String OPERATOR;
    private static final String V11_PUBLIC;
    private static final String V11_OPERATOR;

    static {
        ObjectMapper json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        try {
            ObjectNode operator = (ObjectNode) json.readTree(StaticFiles.load("/api/v2/home.json"));
            ObjectNode everyone = operator.deepCopy();
            ((ObjectNode) everyone.get("resources")).remove(ADMIN);
            PUBLIC = json.writeValueAsString(everyone);
            OPERATOR = json.writeValueAsString(operator);
            V11_PUBLIC = v11(json, everyone);
            V11_OPERATOR = v11(json, operator);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("The v2 home document is not JSON", e);
        }
    }

    /**
     * The v1.1 form: without the v2-only resources, a queue that is read, created and deleted (v1.1 has no
     * patch), every path under /v1.1/.
     */
    private static String v11(ObjectMapper json, ObjectNode v2) throws JsonProcessingException {
        ObjectNode v11 = v2.deepCopy();
        ObjectNode resources = (ObjectNode) v11.get("resources");
        resources.remove(V2_ONLY);
        ObjectNode queueHints = (ObjectNode) resources.get("rel/queue").get("hints");
        queueHints.putArray("allow").add("GET").add("PUT").add("DELETE");
        return json.writeValueAsString(v11).replace("\"/v2/", "\"/v1.1/");
    }

    private V2Home() {}

    /** The home document of {@code version} (v2 or v1.1), in the operator's form or everyone's. */
    public static String of(ApiVersion version, boolean operator) {
        return switch (version) {
            case V2 -> operator ? OPERATOR : PUBLIC;
            case V1_1 -> operator ? V11_OPERATOR : V11_PUBLIC;
            case V1 -> throw new IllegalArgumentException("v1 has a home document of its own");
        };
    }
}
