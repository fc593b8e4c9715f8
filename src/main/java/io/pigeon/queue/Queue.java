package io.pigeon.queue;

/**
 * A queue as listed: its name and, when asked for, its metadata as the JSON text stored (null when not
 * asked for).
 */
public record Queue(String name, String metadataJson) {}
