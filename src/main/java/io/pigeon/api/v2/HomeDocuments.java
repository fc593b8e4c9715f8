package io.pigeon.api.v2;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pigeon.api.StaticDocuments;
import java.util.List;
import java.util.Set;

/**
 * The v2 home document in two forms: what everyone is shown, and what the operator is shown besides (Zaqar's
 * admin block). Both list exactly the resources Pigeon serves: the entries of Zaqar's document for what it does
 * not serve (pools and flavors) are left out, and the admin entries go to the operator only.
 */
final class HomeDocuments {

    /** Zaqar's admin entries that Pigeon serves (to the operator role only). */
    private static final Set<String> ADMIN = Set.of("rel/health");
    /** Zaqar's entries for what Pigeon does not serve. */
    private static final List<String> NOT_SERVED = List.of("rel/pools", "rel/pool", "rel/flavors",
            "rel/flavor");

    static final String PUBLIC;
    static final String OPERATOR;

    static {
        ObjectMapper json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        try {
            ObjectNode operator = (ObjectNode) json.readTree(StaticDocuments.load("/api/v2/home.json"));
            ((ObjectNode) operator.get("resources")).remove(NOT_SERVED);
            ObjectNode everyone = operator.deepCopy();
            ((ObjectNode) everyone.get("resources")).remove(ADMIN);
            PUBLIC = json.writeValueAsString(everyone);
            OPERATOR = json.writeValueAsString(operator);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("The v2 home document is not JSON", e);
        }
    }

    private HomeDocuments() {
    }
}
