package io.pigeon.message;

/**
 * The message store's statements, for tests and the benchmark's SQL ceiling ({@code -Dbench.scenarios=ratio}),
 * which run these exact statements. Test code only: in production the store is their one user.
 */
public final class MessageStatements {

    public static final String POST = MessageStore.POST;
    public static final String POST_CREATING_QUEUE = MessageStore.POST_CREATING_QUEUE;
    public static final String DELETE_BY_IDS = MessageStore.DELETE_BY_IDS;

    private MessageStatements() {}
}
