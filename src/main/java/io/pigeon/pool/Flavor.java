package io.pigeon.pool;

import java.util.List;

/**
 * A flavor and its pools, in name order: a value of the pool catalogue, so that the API's and the console's views of
 * flavors never hold a store's row.
 */
public record Flavor(String name, List<String> pools) {}
