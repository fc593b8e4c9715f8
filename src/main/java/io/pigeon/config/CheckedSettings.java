package io.pigeon.config;

import java.util.List;

/**
 * A settings mapping with bounds that a constraint on one method cannot say (relations between its settings, durations
 * written as text, keys, lists, URLs): each feature's mapping states its own, beside its keys, and {@link SettingsCheck}
 * turns them into violations that stop the start ({@link ValidSettings}). A default method, so that SmallRye Config
 * does not read it as a setting.
 */
public interface CheckedSettings {

    /** Each setting of this mapping out of its bound, as one line naming it and the bound; empty when all are within. */
    List<String> problems();
}
