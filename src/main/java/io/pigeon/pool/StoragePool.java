package io.pigeon.pool;

/**
 * A registered pool: a PostgreSQL server that may hold queues, chosen for a new queue in proportion to its
 * {@code weight} (0: none), among the pools of the queue's flavor when it asks for one. {@code optionsJson} is the
 * operator's free-form object, as stored.
 */
public record StoragePool(String name, PoolUri uri, long weight, String flavor, String optionsJson) {}
