package io.pigeon.accesskeys;

import io.pigeon.config.CheckedSettings;
import io.pigeon.config.ValidSettings;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The access keys of the SQS API and their Signature Version 4 check ({@code pigeon.access-keys.*}, env
 * {@code PIGEON_ACCESS_KEYS_*}): how many keys a project may hold, and how far a request's date may be from the
 * server's clock.
 */
@ConfigMapping(prefix = "pigeon.access-keys")
@ValidSettings
public interface AccessKeySettings extends CheckedSettings {

    /**
     * Live access keys one project may hold; a further key is refused (429) until one is revoked. Revoked keys are
     * kept a day, and at most as many again.
     */
    @WithDefault("10")
    @Min(1)
    @Max(1000)
    int maxPerProject();

    /**
     * How far a signed request's date may be from the server's clock, either way (AWS's own is 15 minutes); a
     * pre-signed URL may also not be dated further ahead than this.
     */
    @WithDefault("15m")
    Duration maxClockSkew();

    /**
     * How long a replica keeps a live key it read, so that a client's requests read it once per this time: a key
     * revoked on another replica still signs there for up to this long. {@code 0s}: every request reads its key.
     */
    @WithDefault("10s")
    Duration keyCacheTtl();

    @Override
    default List<String> problems() {
        List<String> problems = new ArrayList<>();
        if (maxClockSkew().compareTo(Duration.ofMinutes(1)) < 0
                || maxClockSkew().compareTo(Duration.ofHours(1)) > 0) {
            problems.add("pigeon.access-keys.max-clock-skew must be from 1 minute to 1 hour (e.g. 15m), not "
                    + maxClockSkew());
        }
        if (keyCacheTtl().isNegative() || keyCacheTtl().compareTo(Duration.ofMinutes(5)) > 0) {
            problems.add(
                    "pigeon.access-keys.key-cache-ttl must be from 0s to 5 minutes (e.g. 10s), not " + keyCacheTtl());
        }
        return problems;
    }
}
