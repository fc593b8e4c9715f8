package io.pigeon.config;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.jboss.logging.Logger;

/**
 * The rules of the key settings (the signing keys of pre-signed URLs, the message keys of encrypted queues), in one
 * place: the start-time check ({@link SettingsCheck}) applies them before anything else starts, and the beans that
 * use the keys read them through the same methods, so that what starts is what they accept.
 */
public final class KeySettings {

    /** The shortest signing key accepted: HMAC-SHA256's own output size. */
    public static final int MIN_SIGNING_KEY_BYTES = 32;
    /** A message key: AES-256. */
    public static final int ENCRYPTION_KEY_BYTES = 32;
    /** The id of the unnamed signing key ({@code pigeon.signed-url.secret-key}). */
    public static final String UNNAMED = "";

    private static final Pattern SIGNING_KEY_ID = Pattern.compile("[A-Za-z0-9_-]{1,32}");
    private static final Pattern ENCRYPTION_KEY_ID = Pattern.compile("[A-Za-z0-9._-]{1,64}");
    private static final Logger LOG = Logger.getLogger(KeySettings.class);

    private KeySettings() {}

    /**
     * The configured signing keys by id ({@link #UNNAMED} for the secret key), each checked: a key under
     * {@value #MIN_SIGNING_KEY_BYTES} bytes or a malformed id is an {@link IllegalStateException} naming the setting.
     */
    public static Map<String, byte[]> signingKeys(Optional<String> secretKey, Map<String, String> namedKeys) {
        Map<String, byte[]> keys = new HashMap<>();
        secretKey
                .filter(secret -> !secret.isEmpty())
                .ifPresent(secret -> keys.put(UNNAMED, signingKey("pigeon.signed-url.secret-key", secret)));
        namedKeys.forEach((id, secret) -> {
            if (!SIGNING_KEY_ID.matcher(id).matches()) {
                throw new IllegalStateException(
                        "pigeon.signed-url.keys: a key id is 1 to 32 letters, digits, _ or -: " + id);
            }
            keys.put(id, signingKey("pigeon.signed-url.keys." + id, secret));
        });
        return keys;
    }

    /** The id new grants are signed with; an {@link IllegalStateException} when keys are set and it names none. */
    public static String signingKeyId(Optional<String> signingKey, Map<String, byte[]> keys) {
        String id = signingKey.orElse(UNNAMED);
        if (!keys.isEmpty() && !keys.containsKey(id)) {
            throw new IllegalStateException("pigeon.signed-url.signing-key names no configured key: " + id
                    + " (configured: " + keys.keySet() + ")");
        }
        return id;
    }

    private static byte[] signingKey(String setting, String secret) {
        byte[] key = secret.getBytes(StandardCharsets.UTF_8);
        if (key.length < MIN_SIGNING_KEY_BYTES) {
            throw new IllegalStateException(setting + " is " + key.length + " bytes; a signing key needs at least "
                    + MIN_SIGNING_KEY_BYTES + " (e.g. openssl rand -base64 48)");
        }
        return key;
    }

    /**
     * The message keys as configured, by id: {@code pigeon.encryption.keys.<id>} and the files of
     * {@code pigeon.encryption.key-directory} (a directory that is not there gives none, as an optional mounted
     * secret may be absent, and is logged when {@code warnIfAbsent}; one that cannot be read is an
     * {@link UncheckedIOException}).
     */
    public static Map<String, String> encryptionKeyTexts(
            Map<String, String> keys, Optional<String> keyDirectory, boolean warnIfAbsent) {
        Map<String, String> all = new LinkedHashMap<>(keys);
        keyDirectory.ifPresent(directory -> {
            if (!Files.isDirectory(Path.of(directory))) {
                // An optional secret that is not there: no keys from it (a sealed message then says which is missing).
                if (warnIfAbsent) {
                    LOG.warnf(
                            "pigeon.encryption.key-directory %s does not exist: no message keys read from it",
                            directory);
                }
                return;
            }
            try (Stream<Path> files = Files.list(Path.of(directory))) {
                // A mounted secret also holds hidden entries (..data, ..2026_…): keys are the visible regular files.
                for (Path file : files.filter(f -> !f.getFileName().toString().startsWith("."))
                        .sorted()
                        .toList()) {
                    if (Files.isRegularFile(file)) {
                        all.put(file.getFileName().toString(), Files.readString(file, StandardCharsets.US_ASCII));
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException("pigeon.encryption.key-directory " + directory + " cannot be read", e);
            }
        });
        return all;
    }

    /**
     * A message key from its base64 text; an {@link IllegalArgumentException} naming the key when its id is malformed
     * or the text is not base64 of {@value #ENCRYPTION_KEY_BYTES} bytes.
     */
    public static byte[] encryptionKey(String id, String text) {
        if (!ENCRYPTION_KEY_ID.matcher(id).matches()) {
            throw new IllegalArgumentException(
                    "pigeon.encryption key id '" + id + "' must be 1 to 64 letters, digits, '.', '_' or '-'");
        }
        byte[] key;
        try {
            key = Base64.getDecoder().decode(text.strip());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "pigeon.encryption.keys." + id + " is not base64 (a key is " + ENCRYPTION_KEY_BYTES
                            + " bytes in base64, e.g. openssl rand -base64 32)",
                    e);
        }
        if (key.length != ENCRYPTION_KEY_BYTES) {
            throw new IllegalArgumentException("pigeon.encryption.keys." + id + " must be " + ENCRYPTION_KEY_BYTES
                    + " bytes (AES-256), it has " + key.length);
        }
        return key;
    }

    /**
     * The id of the key new messages are sealed with: {@code currentKey} when given (it must be among {@code ids}),
     * else the only key; null when there is none. An {@link IllegalArgumentException} otherwise.
     */
    public static String currentEncryptionKey(Set<String> ids, Optional<String> currentKey) {
        if (currentKey.isPresent()) {
            if (!ids.contains(currentKey.get())) {
                throw new IllegalArgumentException("pigeon.encryption.current-key names " + currentKey.get()
                        + ", which is not among the configured keys " + ids);
            }
            return currentKey.get();
        }
        if (ids.size() > 1) {
            throw new IllegalArgumentException("pigeon.encryption.current-key must name one of the keys " + ids);
        }
        return ids.isEmpty() ? null : ids.iterator().next();
    }
}
