package io.pigeon.api;

/**
 * The refusals the shared HTTP layer makes before any door has read a request, by what they mean. Each door answers
 * them in its own protocol's shape ({@link RefusalShape}); Zaqar's, and any request no door claims, get the
 * {@link ErrorDocument}.
 */
public enum EarlyRefusal {
    /** The body is past {@code pigeon.max-request-body}: 413. */
    TOO_LARGE(413, "Request entity too large"),
    /** The body did not arrive within its deadline: 408. */
    TIMEOUT(408, "Request timeout"),
    /** The request names a host this Pigeon does not serve: 421. */
    MISDIRECTED(421, "Misdirected request");

    private final int status;
    private final String title;

    EarlyRefusal(int status, String title) {
        this.status = status;
        this.title = title;
    }

    public int status() {
        return status;
    }

    /** The title of the error document Zaqar's answer carries. */
    public String title() {
        return title;
    }
}
