package io.pigeon.maintenance;

import io.pigeon.config.CheckedSettings;
import io.pigeon.config.SettingsCheck;
import io.pigeon.config.ValidSettings;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import jakarta.validation.constraints.Min;
import java.util.ArrayList;
import java.util.List;

/**
 * The sweeper that deletes expired messages and ends expired claims.
 *
 * <p>The pace and batches of the sweeper (io.pigeon.maintenance.Sweeper). Its own mapping, so that the feature that
 * reads these keys owns them; the keys are unchanged ({@code pigeon.sweeper.*}, env {@code PIGEON_SWEEPER_*}).
 */
@ConfigMapping(prefix = "pigeon.sweeper")
@ValidSettings
public interface SweeperSettings extends CheckedSettings {

    /** How often it runs, e.g. {@code 5s} ({@code off} disables it). Rows are invisible the moment they expire; this bounds storage. */
    @WithDefault("5s")
    String interval();

    /** Rows per statement: short statements, so that the sweeper never holds locks for long. */
    @WithDefault("1000")
    @Min(1)
    int batchSize();

    /** Statements per run and kind, so that one run stays short even after an outage. */
    @WithDefault("100")
    @Min(1)
    int maxBatchesPerRun();

    @Override
    default List<String> problems() {
        List<String> problems = new ArrayList<>();
        SettingsCheck.interval(problems, "pigeon.sweeper.interval", interval(), true);
        return problems;
    }
}
