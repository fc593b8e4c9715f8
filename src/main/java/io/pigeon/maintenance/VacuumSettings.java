package io.pigeon.maintenance;

import io.pigeon.config.CheckedSettings;
import io.pigeon.config.SettingsCheck;
import io.pigeon.config.ValidSettings;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.util.ArrayList;
import java.util.List;

/**
 * Pigeon's own vacuum of the message tables.
 *
 * <p>The pace of Pigeon's own vacuum (io.pigeon.maintenance.HotTableVacuum, which reads it as its schedule). Its
 * own mapping, so that the feature that reads these keys owns them; the keys are unchanged ({@code
 * pigeon.vacuum.*}, env {@code PIGEON_VACUUM_*}).
 */
@ConfigMapping(prefix = "pigeon.vacuum")
@ValidSettings
public interface VacuumSettings extends CheckedSettings {

    /** How often, e.g. {@code 10s}; {@code off} leaves it to autovacuum alone. */
    @WithDefault("10s")
    String interval();

    @Override
    default List<String> problems() {
        List<String> problems = new ArrayList<>();
        SettingsCheck.interval(problems, "pigeon.vacuum.interval", interval(), true);
        return problems;
    }
}
