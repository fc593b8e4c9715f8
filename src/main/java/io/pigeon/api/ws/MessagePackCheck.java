package io.pigeon.api.ws;

import io.pigeon.api.StrictUtf8;
import java.io.IOException;
import java.util.HashSet;
import java.util.Set;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessageUnpacker;
import org.msgpack.value.ValueType;

/**
 * Walks a MessagePack frame before Jackson reads it, so that what a client sends is read as it was sent and at a cost
 * bounded by the frame's size. Every length a header declares (of a string, binary or extension payload, of an array's
 * items or a map's entries) is compared with the bytes left in the frame before anything is read or allocated:
 * msgpack-core's {@code readPayload(int)} allocates the declared length before it finds the bytes missing, so a 5-byte
 * frame declaring a 64 MiB string cost a 64 MiB allocation on the event loop (an outside attack slowed every request to
 * seconds with 64 anonymous sockets). It also checks what Jackson's MessagePack reader would let pass: one document and
 * nothing after it, no deeper than the JSON reader's bound, at most a given number of values, a UTF-8 string for every map key and no key twice, no
 * binary or extension value.
 */
final class MessagePackCheck {

    private static final String CANNOT = "Can't decode binary (MessagePack) request. ";

    private final MessageUnpacker unpacker;
    private final int frameLength;
    private final int maxDepth;
    private final int maxNodes;
    /** Values (containers and scalars) met so far. */
    private int nodes;

    private MessagePackCheck(MessageUnpacker unpacker, int frameLength, int maxDepth, int maxNodes) {
        this.unpacker = unpacker;
        this.frameLength = frameLength;
        this.maxDepth = maxDepth;
        this.maxNodes = maxNodes;
    }

    /** Checks {@code frame}; a frame that fails is refused with the reason, in Zaqar's words for an undecodable one. */
    static void check(byte[] frame, int maxDepth, int maxNodes) throws FrameCodec.Undecodable {
        try (MessageUnpacker unpacker = MessagePack.newDefaultUnpacker(frame)) {
            if (!unpacker.hasNext()) {
                throw refused("The frame holds no document.");
            }
            new MessagePackCheck(unpacker, frame.length, maxDepth, maxNodes).value(1);
            if (unpacker.hasNext()) {
                throw refused("Bytes follow the document.");
            }
        } catch (IOException | RuntimeException e) {
            throw new FrameCodec.Undecodable(CANNOT + FrameCodec.reason(e));
        }
    }

    static FrameCodec.Undecodable refused(String why) {
        return new FrameCodec.Undecodable(CANNOT + why);
    }

    private void value(int depth) throws IOException, FrameCodec.Undecodable {
        if (depth > maxDepth) {
            throw refused("It nests deeper than " + maxDepth + " levels.");
        }
        if (++nodes > maxNodes) {
            // Each value becomes a node of Jackson's tree: an empty map of one byte costs about a hundred.
            throw refused(FrameCodec.tooManyValues(maxNodes));
        }
        ValueType type = unpacker.getNextFormat().getValueType();
        switch (type) {
            case MAP -> map(depth);
            case ARRAY -> array(depth);
            case STRING -> utf8();
            case BINARY -> {
                declared(unpacker.unpackBinaryHeader(), "A binary value");
                throw refused(FrameCodec.NOT_JSON);
            }
            case EXTENSION -> {
                declared(unpacker.unpackExtensionTypeHeader().getLength(), "An extension value");
                throw refused(FrameCodec.NOT_JSON);
            }
                // nil, boolean, integer, float: of fixed sizes, read (or found missing) without allocating.
            default -> unpacker.skipValue();
        }
    }

    private void map(int depth) throws IOException, FrameCodec.Undecodable {
        int entries = unpacker.unpackMapHeader();
        // An entry takes at least two bytes (a key and a value of one byte each).
        if (2L * entries > left()) {
            throw refused("A map declares " + entries + " entries where " + left()
                    + " bytes are left in the frame (an entry takes at least two).");
        }
        Set<String> keys = new HashSet<>();
        for (int i = 0; i < entries; i++) {
            if (unpacker.getNextFormat().getValueType() != ValueType.STRING) {
                throw refused("A map key is not a string (JSON, which every document is stored as, has only string"
                        + " keys).");
            }
            if (!keys.add(utf8())) {
                // As the JSON reader of every HTTP body: one of the two would be dropped without a word.
                throw refused("A map holds a key twice.");
            }
            value(depth + 1);
        }
    }

    private void array(int depth) throws IOException, FrameCodec.Undecodable {
        int items = unpacker.unpackArrayHeader();
        // An item takes at least one byte.
        if (items > left()) {
            throw refused("An array declares " + items + " items where " + left() + " bytes are left in the frame.");
        }
        for (int i = 0; i < items; i++) {
            value(depth + 1);
        }
    }

    /**
     * The next string, which must be UTF-8: a malformed one would be stored with replacement characters, where the
     * same bytes in a JSON body are refused.
     */
    private String utf8() throws IOException, FrameCodec.Undecodable {
        int length = unpacker.unpackRawStringHeader();
        declared(length, "A string");
        byte[] bytes = unpacker.readPayload(length);
        return StrictUtf8.decode(bytes, bytes.length).orElseThrow(() -> refused("A string is not UTF-8."));
    }

    /** Refuses a payload {@code length} that the bytes left in the frame cannot hold: nothing is read or allocated. */
    private void declared(long length, String what) throws FrameCodec.Undecodable {
        if (length > left()) {
            throw refused(what + " declares " + length + " bytes where " + left() + " are left in the frame.");
        }
    }

    private long left() {
        return frameLength - unpacker.getTotalReadBytes();
    }
}
