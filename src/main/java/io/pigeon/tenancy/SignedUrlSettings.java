package io.pigeon.tenancy;

import io.pigeon.config.CheckedSettings;
import io.pigeon.config.KeySettings;
import io.pigeon.config.PositiveDuration;
import io.pigeon.config.SettingsCheck;
import io.pigeon.config.ValidSettings;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import jakarta.validation.constraints.Min;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Zaqar's pre-signed URLs ({@code POST /v2/queues/{name}/share}).
 *
 * <p>The keys and bounds of Zaqar's pre-signed URLs (io.pigeon.tenancy.SignedUrls). Its own mapping, so that the
 * feature that reads these keys owns them; the keys are unchanged ({@code pigeon.signed-url.*}, env {@code
 * PIGEON_SIGNED_URL_*}).
 */
@ConfigMapping(prefix = "pigeon.signed-url")
@ValidSettings
public interface SignedUrlSettings extends CheckedSettings {

    /**
     * The HMAC key that signs and checks them ({@code PIGEON_SIGNED_URL_SECRET_KEY}, Zaqar's
     * {@code [signed_url] secret_key}). Unset: no URL can be signed, and none is accepted.
     */
    Optional<String> secretKey();

    /**
     * More keys by id ({@code pigeon.signed-url.keys.<id>}, ids of 1 to 32 letters, digits, {@code _} and
     * {@code -}), so that keys can rotate: a grant signed with one of them carries its id in front of its
     * signature ({@code <id>:<hex>}); the unnamed {@link #secretKey()} signs as Zaqar does (hex alone). Every
     * key is at least 32 bytes, or Pigeon refuses to start.
     */
    Map<String, String> keys();

    /** The id of the key new grants are signed with; left out, the unnamed {@link #secretKey()}. */
    Optional<String> signingKey();

    /**
     * The longest a grant may be valid: a share asking for a later {@code expires} is refused (400), and a
     * grant whose expiry lies further ahead is not accepted. Confirmation requests are valid for the
     * subscription's ttl, at most this long.
     */
    @WithDefault("P7D")
    @PositiveDuration
    Duration maxLifetime();

    /**
     * Claims and pops one grant (one signature) may have waiting at once on this replica; one more is refused
     * (429). They count against this bound instead of the project's ({@code claim-wait.max-waiters-per-project}),
     * so a grant's holder cannot lock the project's own consumers out. At least 1.
     */
    @WithDefault("10")
    @Min(1)
    int maxWaitersPerGrant();

    /**
     * Sockets on one replica that one grant (one signature) may admit frames on; a frame that would make one more
     * closes its socket with 1008. They count against this bound instead of the project's
     * ({@code websocket.max-sockets-per-project}). At least 1.
     */
    @WithDefault("10")
    @Min(1)
    int maxSocketsPerGrant();

    @Override
    default List<String> problems() {
        List<String> problems = new ArrayList<>();
        Map<String, byte[]> signing =
                SettingsCheck.guarded(problems, () -> KeySettings.signingKeys(secretKey(), keys()));
        if (signing != null) {
            SettingsCheck.guarded(problems, () -> KeySettings.signingKeyId(signingKey(), signing));
        }
        return problems;
    }
}
