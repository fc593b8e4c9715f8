package io.pigeon.message;

/** What deleting one message found, so that the service can name the rule a refused delete broke. */
public enum DeleteOutcome {
    /** Deleted now. */
    DELETED,
    /** There was no such live message: it is gone already. */
    GONE,
    /** The message is held by a live claim and no claim id was given. */
    CLAIMED,
    /** A claim id was given, but the message is held by another claim (or the given one ended). */
    CLAIM_MISMATCH,
    /** A claim id was given, but no live claim holds the message. */
    NOT_CLAIMED
}
