package io.pigeon.api.ws;

import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * msgpack-core picks its buffer class when it is first loaded, by name ({@code Class.forName}) and through its
 * constructors ({@code getDeclaredConstructor(byte[], int, int)}, {@code (ByteBuffer)}): a native image must keep
 * them for reflection, or the first MessagePack frame fails there. Jackson's tree model needs nothing more.
 */
@RegisterForReflection(
        classNames = {
            "org.msgpack.core.buffer.MessageBuffer",
            "org.msgpack.core.buffer.MessageBufferBE",
            "org.msgpack.core.buffer.MessageBufferU"
        })
final class MessagePackReflection {

    private MessagePackReflection() {}
}
