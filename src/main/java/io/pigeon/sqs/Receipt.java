package io.pigeon.sqs;

import java.util.UUID;

/**
 * What a receipt handle stands for: one receive of one message, the message's row id, the claim that took it and how
 * many times the message had been taken once this receive had taken it (its {@code claim_count} then; each receive
 * counts one more, so the count tells this receive from any later one).
 */
public record Receipt(long messageId, UUID claimId, int receiveCount) {}
