package io.pigeon.pool;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * What a request says of a pool, parsed at the edge: on registration {@code uri} and {@code weight} are required;
 * on a patch any field may be absent (null), and an empty {@code flavor} takes the pool out of its flavor.
 */
public record PoolSpec(String uri, Long weight, String flavor, ObjectNode options) {}
