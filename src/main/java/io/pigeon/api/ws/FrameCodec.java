package io.pigeon.api.ws;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pigeon.json.StrictJson;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessageUnpacker;
import org.msgpack.jackson.dataformat.MessagePackFactory;
import org.msgpack.value.ValueType;

/**
 * The two encodings of a frame: a text frame is JSON, a binary frame MessagePack, both read into and written from
 * Jackson's tree model (which keeps an object's keys in order, as Zaqar's answers have them). JSON is read by
 * {@link StrictJson}, the reader of every HTTP body, with its bounds on nesting, number and string lengths.
 */
final class FrameCodec {

    private static final JsonNodeFactory NODES = JsonNodeFactory.withExactBigDecimals(true);
    private static final ObjectMapper JSON = new ObjectMapper().setNodeFactory(NODES);
    private static final ObjectMapper MESSAGE_PACK = new ObjectMapper(new MessagePackFactory()).setNodeFactory(NODES);

    /** The deepest nesting a frame may have: the JSON reader's own bound. */
    private static final int MAX_DEPTH = StreamReadConstraints.defaults().getMaxNestingDepth();

    /** The largest integer MessagePack holds (uint64). */
    private static final BigInteger MAX_UINT64 = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);

    private FrameCodec() {}

    /** A frame that could not be read as a document: what Zaqar says of it. */
    static final class Undecodable extends Exception {
        Undecodable(String message) {
            super(message, null, false, false);
        }
    }

    static JsonNode readText(String text) throws Undecodable {
        try {
            JsonNode node = StrictJson.read(text.getBytes(StandardCharsets.UTF_8));
            if (node == null || node.isMissingNode()) {
                throw new Undecodable("Can't decode text (JSON) request. The frame holds no document.");
            }
            return node;
        } catch (IOException | RuntimeException e) {
            throw new Undecodable("Can't decode text (JSON) request. " + reason(e));
        }
    }

    static JsonNode readBinary(byte[] frame) throws Undecodable {
        checkMessagePack(frame);
        try {
            JsonNode node = MESSAGE_PACK.readTree(frame);
            if (node == null || node.isMissingNode()) {
                throw new Undecodable("Can't decode binary (MessagePack) request. The frame holds no document.");
            }
            if (deeperThan(node, MAX_DEPTH)) {
                throw new Undecodable(
                        "Can't decode binary (MessagePack) request. It nests deeper than " + MAX_DEPTH + " levels.");
            }
            if (holdsWhatJsonCannot(node)) {
                throw new Undecodable("Can't decode binary (MessagePack) request. It holds a value that JSON has no "
                        + "spelling for (binary, an extension type, NaN or an infinity).");
            }
            return node;
        } catch (IOException | RuntimeException e) {
            throw new Undecodable("Can't decode binary (MessagePack) request. " + reason(e));
        }
    }

    /**
     * Reads the frame's MessagePack as it is before Jackson does: one document and nothing after it, no deeper than
     * the JSON reader's bound, and a string for every map key. Jackson's MessagePack reader drops an entry whose key is
     * an array or a map, and reads a nil key as a field of its own, so a body holding one would be stored as something
     * else than was sent; bytes after the document would be passed over.
     */
    private static void checkMessagePack(byte[] frame) throws Undecodable {
        try (MessageUnpacker unpacker = MessagePack.newDefaultUnpacker(frame)) {
            if (!unpacker.hasNext()) {
                throw new Undecodable("Can't decode binary (MessagePack) request. The frame holds no document.");
            }
            checkValue(unpacker, 1);
            if (unpacker.hasNext()) {
                throw new Undecodable("Can't decode binary (MessagePack) request. Bytes follow the document.");
            }
        } catch (IOException | RuntimeException e) {
            throw new Undecodable("Can't decode binary (MessagePack) request. " + reason(e));
        }
    }

    private static void checkValue(MessageUnpacker unpacker, int depth) throws IOException, Undecodable {
        if (depth > MAX_DEPTH) {
            throw new Undecodable(
                    "Can't decode binary (MessagePack) request. It nests deeper than " + MAX_DEPTH + " levels.");
        }
        ValueType type = unpacker.getNextFormat().getValueType();
        if (type == ValueType.MAP) {
            int entries = unpacker.unpackMapHeader();
            Set<String> keys = new HashSet<>();
            for (int i = 0; i < entries; i++) {
                if (unpacker.getNextFormat().getValueType() != ValueType.STRING) {
                    throw new Undecodable("Can't decode binary (MessagePack) request. A map key is not a string"
                            + " (JSON, which every document is stored as, has only string keys).");
                }
                if (!keys.add(utf8(unpacker))) {
                    // As the JSON reader of every HTTP body: one of the two would be dropped without a word.
                    throw new Undecodable("Can't decode binary (MessagePack) request. A map holds a key twice.");
                }
                checkValue(unpacker, depth + 1);
            }
        } else if (type == ValueType.STRING) {
            utf8(unpacker);
        } else if (type == ValueType.ARRAY) {
            int items = unpacker.unpackArrayHeader();
            for (int i = 0; i < items; i++) {
                checkValue(unpacker, depth + 1);
            }
        } else {
            unpacker.skipValue();
        }
    }

    /**
     * The next string, which must be UTF-8: a malformed one would be stored with replacement characters, where the
     * same bytes in a JSON body are refused.
     */
    private static String utf8(MessageUnpacker unpacker) throws IOException, Undecodable {
        byte[] bytes = unpacker.readPayload(unpacker.unpackRawStringHeader());
        try {
            return StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes))
                    .toString();
        } catch (CharacterCodingException malformed) {
            throw new Undecodable("Can't decode binary (MessagePack) request. A string is not UTF-8.");
        }
    }

    /**
     * Whether the document holds a value that a JSON document cannot: every message body and metadata is stored and
     * read back as JSON, so such a value would come back as something else (binary as base64 text, NaN as a string)
     * or not at all (an extension type).
     */
    private static boolean holdsWhatJsonCannot(JsonNode document) {
        Deque<JsonNode> pending = new ArrayDeque<>();
        pending.push(document);
        while (!pending.isEmpty()) {
            JsonNode next = pending.pop();
            if (next.isBinary() || next.isPojo()) {
                return true;
            }
            if (next.isFloatingPointNumber() && !Double.isFinite(next.doubleValue())) {
                return true;
            }
            next.forEach(pending::push);
        }
        return false;
    }

    /**
     * Whether the document nests deeper than {@code limit}: the MessagePack reader has no nesting bound of its own,
     * and a frame is written back (echoed) by recursion, so it gets the JSON reader's bound.
     */
    private static boolean deeperThan(JsonNode document, int limit) {
        Deque<Map.Entry<JsonNode, Integer>> pending = new ArrayDeque<>();
        pending.push(Map.entry(document, 1));
        while (!pending.isEmpty()) {
            Map.Entry<JsonNode, Integer> next = pending.pop();
            if (next.getValue() > limit) {
                return true;
            }
            if (next.getKey().isContainerNode()) {
                for (JsonNode child : next.getKey()) {
                    if (child.isContainerNode()) {
                        pending.push(Map.entry(child, next.getValue() + 1));
                    }
                }
            }
        }
        return false;
    }

    /** The first line of a parser's complaint, without the location dump Jackson appends. */
    private static String reason(Exception e) {
        String message = e instanceof JsonProcessingException parse ? parse.getOriginalMessage() : e.getMessage();
        String kind = e.getClass().getSimpleName();
        if (message == null) {
            return kind + ":";
        }
        int newline = message.indexOf('\n');
        return kind + ": " + (newline < 0 ? message : message.substring(0, newline));
    }

    static String writeText(JsonNode document) {
        try {
            return JSON.writeValueAsString(document);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    static byte[] writeBinary(JsonNode document) {
        try {
            return MESSAGE_PACK.writeValueAsBytes(forMessagePack(document));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Compact JSON bytes of a part of a frame, for the request readers the HTTP resources use. */
    static byte[] jsonBytes(JsonNode document) {
        try {
            return JSON.writeValueAsBytes(document);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A stored JSON document (a message body) as a tree, numbers kept exact. */
    static JsonNode readStored(String json) {
        try {
            return StrictJson.read(json.getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static ObjectNode object() {
        return NODES.objectNode();
    }

    static ArrayNode array() {
        return NODES.arrayNode();
    }

    /**
     * The document with its numbers as MessagePack holds them: a decimal becomes a double (MessagePack has no exact
     * decimals; 0.1 is sent as the nearest double, as a Python client would), an integer beyond uint64 too.
     */
    private static JsonNode forMessagePack(JsonNode node) {
        if (node.isBigDecimal()) {
            return NODES.numberNode(node.decimalValue().doubleValue());
        }
        if (node.isBigInteger()) {
            BigInteger value = node.bigIntegerValue();
            return value.signum() >= 0
                    ? value.compareTo(MAX_UINT64) <= 0 ? node : NODES.numberNode(value.doubleValue())
                    : value.bitLength() < 64 ? node : NODES.numberNode(value.doubleValue());
        }
        if (node.isObject()) {
            ObjectNode copy = NODES.objectNode();
            for (Iterator<Map.Entry<String, JsonNode>> fields = node.fields(); fields.hasNext(); ) {
                Map.Entry<String, JsonNode> field = fields.next();
                copy.set(field.getKey(), forMessagePack(field.getValue()));
            }
            return copy;
        }
        if (node.isArray()) {
            ArrayNode copy = NODES.arrayNode();
            node.forEach(item -> copy.add(forMessagePack(item)));
            return copy;
        }
        return node;
    }
}
