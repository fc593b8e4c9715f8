package io.pigeon.encryption;

import io.pigeon.config.CheckedSettings;
import io.pigeon.config.KeySettings;
import io.pigeon.config.SettingsCheck;
import io.pigeon.config.ValidSettings;
import io.smallrye.config.ConfigMapping;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Encryption at rest of the queues whose {@code _enable_encrypt_messages} is true.
 *
 * <p>The message keys of encryption at rest (io.pigeon.encryption.MessageCipher). Its own mapping, so that the
 * feature that reads these keys owns them; the keys are unchanged ({@code pigeon.encryption.*}, env {@code
 * PIGEON_ENCRYPTION_*}).
 */
@ConfigMapping(prefix = "pigeon.encryption")
@ValidSettings
public interface EncryptionSettings extends CheckedSettings {

    /**
     * The keys by id, each 32 bytes in base64 ({@code pigeon.encryption.keys.<id>}). Every key a stored
     * message names must stay here for as long as such messages live; new messages take {@link #currentKey()}.
     */
    Map<String, String> keys();

    /**
     * A directory of keys, one file per key, named by its id, holding the key in base64: a mounted
     * Kubernetes secret. Read at start, beside {@link #keys()}.
     */
    Optional<String> keyDirectory();

    /** The id of the key new messages are sealed with; may be left out when there is only one key. */
    Optional<String> currentKey();

    @Override
    default List<String> problems() {
        List<String> problems = new ArrayList<>();
        Map<String, String> texts =
                SettingsCheck.guarded(problems, () -> KeySettings.encryptionKeyTexts(keys(), keyDirectory(), false));
        if (texts != null) {
            texts.forEach((id, text) -> SettingsCheck.guarded(problems, () -> KeySettings.encryptionKey(id, text)));
            SettingsCheck.guarded(problems, () -> KeySettings.currentEncryptionKey(texts.keySet(), currentKey()));
        }
        return problems;
    }
}
