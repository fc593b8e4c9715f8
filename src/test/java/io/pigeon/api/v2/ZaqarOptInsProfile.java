package io.pigeon.api.v2;

import io.quarkus.test.junit.QuarkusTestProfile;
import java.util.Map;

/**
 * Zaqar's two opt-in options on at once: {@code require_confirmation} ({@code pigeon.notification.require-confirmation},
 * RequiredConfirmationTest) and {@code message_delete_with_claim_id} ({@code pigeon.message-delete-with-claim-id},
 * DeleteWithClaimIdsTest). One profile, so one Quarkus start for both classes: neither option touches what the other
 * class does (the first acts on webhook subscriptions, the second on bulk deletes by id).
 */
public class ZaqarOptInsProfile implements QuarkusTestProfile {

    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of(
                "pigeon.notification.require-confirmation", "true",
                "pigeon.message-delete-with-claim-id", "true");
    }
}
