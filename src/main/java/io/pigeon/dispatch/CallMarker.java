package io.pigeon.dispatch;

import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.enterprise.context.ApplicationScoped;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Base64;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The header that marks every call Pigeon makes, so that a call which comes back to Pigeon (through a Service,
 * an ingress, a relay: anything the address checks cannot see through) is recognised and fans out no further.
 *
 * <p>The value is an HMAC of a fixed text under the deployment's secret ({@code pigeon.dispatch.call-marker-secret},
 * else the random value migration V13 stored once in the configured database, which every replica reads): each
 * deployment has its own, the replicas of one share it, and the secret itself never leaves. A receiver sees the
 * value and can send it back; all it then gets is what the marker means: its own post to Pigeon is stored without
 * notifying anyone. The marker is never looked at for anything that authorises.
 */
@ApplicationScoped
public class CallMarker {

    /** The header's name; a subscriber cannot set it (see {@link CallHeaders}). */
    public static final String HEADER = "X-Pigeon-Marker";

    private static final String MARKED_TEXT = "pigeon call marker v1";
    private static final String SECRET_ROW = "SELECT value FROM deployment_secrets WHERE name = 'call-marker'";

    private final Pool catalogue;
    private final Optional<String> configured;
    /** The marker once known; read from the database on first need (a failed read is tried again next time). */
    private volatile String value;

    public CallMarker(Pool catalogue, DispatchSettings dispatchSettings) {
        this.catalogue = catalogue;
        this.configured = dispatchSettings.callMarkerSecret().filter(secret -> !secret.isEmpty());
    }

    /** The value every outbound call carries in {@link #HEADER}. */
    public Uni<String> value() {
        String known = value;
        if (known != null) {
            return Uni.createFrom().item(known);
        }
        Uni<String> secret = configured.isPresent()
                ? Uni.createFrom().item(configured.get())
                : catalogue.query(SECRET_ROW).execute().map(rows -> {
                    if (rows.size() == 0) {
                        throw new IllegalStateException("deployment_secrets has no call-marker row (migration V13)");
                    }
                    return rows.iterator().next().getString(0);
                });
        return secret.map(CallMarker::markerOf).invoke(marker -> value = marker);
    }

    /**
     * Whether {@code presented} (a request's {@link #HEADER} values joined by commas, or null) holds this
     * deployment's marker: any one of them, so that a relay which adds a value, or sends the header twice, still
     * brings back a marked call.
     */
    public Uni<Boolean> recognises(String presented) {
        if (presented == null || presented.isBlank()) {
            return Uni.createFrom().item(false);
        }
        return value().map(marker -> Arrays.stream(presented.split(","))
                .anyMatch(value -> MessageDigest.isEqual(
                        marker.getBytes(StandardCharsets.US_ASCII), value.trim().getBytes(StandardCharsets.UTF_8))));
    }

    static String markerOf(String secret) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            return Base64.getUrlEncoder()
                    .withoutPadding()
                    .encodeToString(mac.doFinal(MARKED_TEXT.getBytes(StandardCharsets.UTF_8)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available", e);
        }
    }
}
