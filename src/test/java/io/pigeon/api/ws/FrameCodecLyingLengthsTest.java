package io.pigeon.api.ws;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.management.ThreadMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A MessagePack frame's decoding costs no more than its size: a header that declares more bytes than the frame holds
 * is refused before anything of that size is allocated. Measured with the JVM's count of the bytes this thread
 * allocated (an outside attack found {@code db 03 ff ff ff} allocating 64 MiB before it was answered 400). A frame of
 * many small values is refused past its bound of values, before a tree is built.
 */
class FrameCodecLyingLengthsTest {

    /** Far above what refusing a small frame takes (an exception, a message), far below what the lies declare. */
    private static final long MOST_ALLOCATED = 1 << 20;

    private static final ThreadMXBean THREADS = (ThreadMXBean) ManagementFactory.getThreadMXBean();

    @Test
    void theFiveByteFrameOfTheAttackAllocatesNothingOfWhatItDeclares() throws Exception {
        byte[] attack = {(byte) 0xdb, 0x03, (byte) 0xff, (byte) 0xff, (byte) 0xff};
        warmUp();
        long allocated = allocatedWhileRefused(attack);
        assertTrue(allocated < MOST_ALLOCATED, "decoding db 03 ff ff ff allocated " + allocated + " bytes");
    }

    @Test
    void everyLyingHeaderInEveryPlaceIsRefusedWithoutItsAllocation() throws Exception {
        warmUp();
        List<String> costly = new ArrayList<>();
        for (LyingFrames.Lying lying : LyingFrames.all()) {
            long allocated = allocatedWhileRefused(lying.bytes());
            if (allocated >= MOST_ALLOCATED) {
                costly.add(lying + ": " + allocated + " bytes");
            }
        }
        assertEquals(List.of(), costly, "frames whose refusal allocated 1 MiB or more");
    }

    @Test
    void honestLengthsOfEveryWidthStillDecode() throws Exception {
        // {"a": "xyz"} with the string as str8, str16 and str32, and an array32 of one item in a map16.
        byte[][] honest = {
            {(byte) 0x81, (byte) 0xa1, 'a', (byte) 0xd9, 3, 'x', 'y', 'z'},
            {(byte) 0x81, (byte) 0xa1, 'a', (byte) 0xda, 0, 3, 'x', 'y', 'z'},
            {(byte) 0x81, (byte) 0xa1, 'a', (byte) 0xdb, 0, 0, 0, 3, 'x', 'y', 'z'},
            {(byte) 0xde, 0, 1, (byte) 0xa1, 'a', (byte) 0xdd, 0, 0, 0, 1, (byte) 0xa3, 'x', 'y', 'z'},
        };
        for (byte[] frame : honest) {
            JsonNode document = FrameCodec.readBinary(frame, 1_000_000);
            assertEquals(
                    "xyz",
                    document.get("a").isArray()
                            ? document.get("a").get(0).asText()
                            : document.get("a").asText());
        }
    }

    /** Bytes this thread allocated while {@code frame} was decoded, which must be refused. */
    private static long allocatedWhileRefused(byte[] frame) {
        long before = THREADS.getCurrentThreadAllocatedBytes();
        FrameCodec.Undecodable refused =
                assertThrows(FrameCodec.Undecodable.class, () -> FrameCodec.readBinary(frame, 1_000_000));
        long allocated = THREADS.getCurrentThreadAllocatedBytes() - before;
        assertTrue(refused.getMessage().startsWith("Can't decode binary (MessagePack) request."), refused.getMessage());
        return allocated;
    }

    /**
     * A frame holding more values than its bound is refused naming it, in either encoding, and one holding exactly as
     * many is read: the map, its key's value (an array) and the array's items count, keys do not.
     */
    @Test
    void aFrameOfMoreValuesThanItsBoundIsRefusedNamingIt() throws Exception {
        // {"a":[{},{},{}]}: 5 values.
        byte[] packed = {(byte) 0x81, (byte) 0xa1, 'a', (byte) 0x93, (byte) 0x80, (byte) 0x80, (byte) 0x80};
        String text = "{\"a\":[{},{},{}]}";
        assertEquals(3, FrameCodec.readBinary(packed, 5).get("a").size());
        assertEquals(3, FrameCodec.readText(text, 5).get("a").size());
        FrameCodec.Undecodable binary =
                assertThrows(FrameCodec.Undecodable.class, () -> FrameCodec.readBinary(packed, 4));
        assertEquals(
                "Can't decode binary (MessagePack) request. It holds more than 4 values (objects, arrays and scalars).",
                binary.getMessage());
        FrameCodec.Undecodable json = assertThrows(FrameCodec.Undecodable.class, () -> FrameCodec.readText(text, 4));
        assertEquals(
                "Can't decode text (JSON) request. It holds more than 4 values (objects, arrays and scalars).",
                json.getMessage());
    }

    /** Loads what decoding and refusing use, so that loading it is not counted. */
    private static void warmUp() throws Exception {
        FrameCodec.readBinary(new byte[] {(byte) 0x81, (byte) 0xa1, 'a', 1}, 1_000_000);
        assertThrows(
                FrameCodec.Undecodable.class, () -> FrameCodec.readBinary(new byte[] {(byte) 0xa3, 'x'}, 1_000_000));
        assertThrows(
                FrameCodec.Undecodable.class, () -> FrameCodec.readBinary(new byte[] {(byte) 0xc4, 9, 1}, 1_000_000));
    }
}
