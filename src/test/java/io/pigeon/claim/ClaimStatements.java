package io.pigeon.claim;

/** The claim store's statements, for the benchmark's SQL ceiling (test code only, as MessageStatements). */
public final class ClaimStatements {

    public static final String CREATE = ClaimStore.CREATE;

    private ClaimStatements() {
    }
}
