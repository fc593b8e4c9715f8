package io.pigeon.message;

/** What deleting one message found, so that the service can name the rule a refused delete broke. */
public enum DeleteOutcome {
    /** Deleted, or there was no such live message: either way it is gone. */
    GONE,
    /** The message is held by a live claim and no claim id was given. */
    CLAIMED,
    /** A claim id was given, but the message is held by another claim (or the given one ended). */
    CLAIM_MISMATCH,
    /** A claim id was given, but no live claim holds the message. */
    NOT_CLAIMED
}
