package io.pigeon.api.ws;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * MessagePack frames whose headers declare more than the frame holds: every header form that declares a length (str,
 * bin and ext of 8, 16 and 32 bits, fixext, array and map of 16 and 32 bits), with the largest lengths an attacker would
 * pick, placed at the top, as a map's value, as a map's key, and nested as a value and as a key inside a request. An
 * outside attack found that {@code db 03 ff ff ff} (5 bytes) made the decoder allocate 64 MiB.
 */
final class LyingFrames {

    /** A frame and what it is, for the assertion messages. */
    record Lying(String name, byte[] bytes) {
        /** Whether it is the frame the outside attack sent (in any place): a string declaring 64 MiB. */
        boolean isTheAttack() {
            return name.startsWith("str32 declaring " + 0x03ff_ffff + " ");
        }

        @Override
        public String toString() {
            return name + " [" + HexFormat.of().formatHex(bytes, 0, Math.min(bytes.length, 24)) + "]";
        }
    }

    /** Honest bytes after a lying header, fewer than any header declares: the fixstr "x" three times. */
    private static final byte[] TAIL = {(byte) 0xa1, 'x', (byte) 0xa1, 'x', (byte) 0xa1, 'x'};

    private LyingFrames() {}

    /** Every lying header in every place. */
    static List<Lying> all() {
        List<Lying> frames = new ArrayList<>();
        for (Lying header : headers()) {
            byte[] lying = header.bytes();
            frames.add(new Lying(header.name() + " at the top", lying));
            frames.add(new Lying(header.name() + " as a value", concat(map1(), str("action"), lying)));
            frames.add(new Lying(header.name() + " as a key", concat(map1(), lying)));
            frames.add(new Lying(header.name() + " nested as a value", concat(request(), map1(), str("ttl"), lying)));
            frames.add(new Lying(header.name() + " nested as a key", concat(request(), map1(), lying)));
        }
        return frames;
    }

    /** The lying headers, each with the few bytes that follow it (fewer than it declares). */
    static List<Lying> headers() {
        List<Lying> headers = new ArrayList<>();
        for (long length : new long[] {0xffL}) {
            headers.add(header("str8", 0xd9, length, 1, -1));
            headers.add(header("bin8", 0xc4, length, 1, -1));
            headers.add(header("ext8", 0xc7, length, 1, 5));
        }
        for (long length : new long[] {0xffffL}) {
            headers.add(header("str16", 0xda, length, 2, -1));
            headers.add(header("bin16", 0xc5, length, 2, -1));
            headers.add(header("ext16", 0xc8, length, 2, 5));
            headers.add(header("array16", 0xdc, length, 2, -1));
            headers.add(header("map16", 0xde, length, 2, -1));
        }
        // 64 MiB, the largest a Java array may be, and beyond what a signed int holds.
        for (long length : new long[] {0x03ff_ffffL, 0x7fff_ffffL, 0xffff_ffffL}) {
            headers.add(header("str32", 0xdb, length, 4, -1));
            headers.add(header("bin32", 0xc6, length, 4, -1));
            headers.add(header("ext32", 0xc9, length, 4, 5));
            headers.add(header("array32", 0xdd, length, 4, -1));
            headers.add(header("map32", 0xdf, length, 4, -1));
        }
        // fixext 1, 2, 4, 8 and 16: lengths fixed by the marker, and no byte follows.
        int[] fixext = {0xd4, 0xd5, 0xd6, 0xd7, 0xd8};
        for (int i = 0; i < fixext.length; i++) {
            headers.add(new Lying("fixext" + (1 << i), new byte[] {(byte) fixext[i], 5}));
        }
        return headers;
    }

    private static Lying header(String form, int marker, long length, int lengthBytes, int extType) {
        ByteArrayOutputStream header = new ByteArrayOutputStream();
        header.write(marker);
        for (int shift = 8 * (lengthBytes - 1); shift >= 0; shift -= 8) {
            header.write((int) (length >>> shift));
        }
        if (extType >= 0) {
            header.write(extType);
        }
        header.writeBytes(TAIL);
        return new Lying(form + " declaring " + length, header.toByteArray());
    }

    /**
     * The start of a request that nests what follows two levels down: {@code {"action": "message_post", "body":
     * {"messages": [ ...}.
     */
    private static byte[] request() {
        return concat(
                new byte[] {(byte) 0x82},
                str("action"),
                str("message_post"),
                str("body"),
                map1(),
                str("messages"),
                new byte[] {(byte) 0x91});
    }

    private static byte[] map1() {
        return new byte[] {(byte) 0x81};
    }

    private static byte[] str(String text) {
        byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
        return concat(new byte[] {(byte) (0xa0 | utf8.length)}, utf8);
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        for (byte[] part : parts) {
            all.writeBytes(part);
        }
        return all.toByteArray();
    }
}
