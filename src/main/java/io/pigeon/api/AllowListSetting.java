package io.pigeon.api;

import java.util.List;
import java.util.Optional;

/**
 * The entries of a setting that lists what is allowed besides a default, where {@code *} alone allows anything
 * ({@code pigeon.http.allowed-hosts}, {@code pigeon.websocket.allowed-origins}): blank entries are left out, and
 * {@code *} beside other entries stops the start, since it would make them meaningless and is likely a mistake.
 *
 * @param any whether the setting is {@code *} alone
 * @param entries the trimmed entries, none when {@code any}
 */
public record AllowListSetting(boolean any, List<String> entries) {

    /**
     * @param setting the setting's name, for the refusal
     * @param what what {@code *} stands for, for the refusal ("any host")
     * @throws IllegalArgumentException naming the setting, when {@code *} is one entry of several
     */
    public static AllowListSetting of(String setting, Optional<List<String>> configured, String what) {
        List<String> entries = configured.orElse(List.of()).stream()
                .map(String::trim)
                .filter(entry -> !entry.isEmpty())
                .toList();
        if (!entries.contains("*")) {
            return new AllowListSetting(false, entries);
        }
        if (entries.size() > 1) {
            throw new IllegalArgumentException(
                    setting + ": '*' (" + what + ") must be the only entry, not one of " + entries);
        }
        return new AllowListSetting(true, List.of());
    }
}
