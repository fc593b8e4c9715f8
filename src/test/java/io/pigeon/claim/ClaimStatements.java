package io.pigeon.claim;

/** The claim store's statements, for the benchmark's SQL ceiling (test code only, as MessageStatements). */
public final class ClaimStatements {

    /** One claim alone, as a claim that shares no statement runs. */
    public static final String CREATE_ONE = ClaimStore.CREATE_ONE;

    private ClaimStatements() {}
}
