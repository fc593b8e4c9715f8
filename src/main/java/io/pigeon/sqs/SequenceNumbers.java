package io.pigeon.sqs;

import java.math.BigInteger;

/**
 * A FIFO message's {@code SequenceNumber}: AWS's is a large, non-consecutive 128-bit number that increases within a
 * message group. Pigeon's is the message's id (Zaqar's row id, drawn from one sequence in post order, which is the
 * order a FIFO queue claims a group's messages in) in the high 64 bits, the low 64 bits zero: so it increases within a
 * group (and the queue), is never consecutive, and reads back as the id it was made of.
 */
final class SequenceNumbers {

    private SequenceNumbers() {}

    static String of(long messageId) {
        return BigInteger.valueOf(messageId).shiftLeft(64).toString();
    }
}
