package io.pigeon.quota;

import io.quarkus.test.junit.QuarkusTestProfile;
import java.util.Map;

/** Quotas small enough to reach in a test; the usage check runs when the test asks. */
public class SmallQuotasProfile implements QuarkusTestProfile {

    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of(
                "pigeon.quotas.max-queues-per-project", "3",
                "pigeon.quotas.max-messages-per-queue", "5",
                "pigeon.quotas.max-subscriptions-per-queue", "2",
                "pigeon.quotas.max-pending-groups-per-project", "3",
                "pigeon.quotas.max-notifications-per-post", "4",
                "pigeon.quotas.max-pending-items-per-project", "8",
                "pigeon.quotas.max-pending-bytes-per-project", "3000",
                "pigeon.quotas.max-items-per-group", "3",
                "pigeon.quotas.check-interval", "1h");
    }
}
