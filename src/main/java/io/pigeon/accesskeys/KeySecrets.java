package io.pigeon.accesskeys;

import java.util.Optional;

/**
 * Where a verifier finds the secret of an access key id: the service looks it up in the database; a test or a
 * benchmark holds its own. Empty for a key that was never issued or was revoked.
 */
@FunctionalInterface
public interface KeySecrets {

    /** The project and secret of {@code accessKeyId}, or empty when it is unknown or revoked. */
    Optional<KeySecret> find(String accessKeyId);

    /** A live access key's project and secret access key. */
    record KeySecret(String project, String secret) {}
}
