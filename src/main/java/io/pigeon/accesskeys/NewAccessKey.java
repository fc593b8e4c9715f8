package io.pigeon.accesskeys;

import java.time.Instant;

/** A key just made: the only answer that holds its secret, which is shown once and never again. */
public record NewAccessKey(String accessKeyId, String secretAccessKey, Instant createdAt) {}
