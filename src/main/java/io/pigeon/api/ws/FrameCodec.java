package io.pigeon.api.ws;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
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
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;
import java.util.Map;
import org.msgpack.jackson.dataformat.MessagePackFactory;

/**
 * The two encodings of a frame: a text frame is JSON, a binary frame MessagePack, both read into and written from
 * Jackson's tree model (which keeps an object's keys in order, as Zaqar's answers have them). JSON is read by
 * {@link StrictJson}, the reader of every HTTP body, with its bounds on nesting, number and string lengths. A frame may
 * also hold at most a given number of values (nodes): a tree costs about a hundred times the bytes of its smallest
 * values, so the frame's size alone does not bound what reading it costs.
 */
final class FrameCodec {

    private static final JsonNodeFactory NODES = JsonNodeFactory.withExactBigDecimals(true);
    private static final ObjectMapper JSON = new ObjectMapper().setNodeFactory(NODES);
    private static final ObjectMapper MESSAGE_PACK = new ObjectMapper(new MessagePackFactory()).setNodeFactory(NODES);

    /** The deepest nesting a frame may have: the JSON reader's own bound. */
    private static final int MAX_DEPTH = StreamReadConstraints.defaults().getMaxNestingDepth();

    /** The largest integer MessagePack holds (uint64). */
    private static final BigInteger MAX_UINT64 = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);

    /** Why a MessagePack frame holding a value that JSON cannot spell is refused. */
    static final String NOT_JSON =
            "It holds a value that JSON has no spelling for (binary, an extension type, NaN or an infinity).";

    private FrameCodec() {}

    /** A frame that could not be read as a document: what Zaqar says of it. */
    static final class Undecodable extends Exception {
        Undecodable(String message) {
            super(message, null, false, false);
        }
    }

    /**
     * Reads a text frame holding at most {@code maxNodes} values: they are counted on the tokens first, so that a frame
     * of many small values ({@code [{},{},...]}) is refused before a tree of one object per two bytes is built.
     */
    static JsonNode readText(String text, int maxNodes) throws Undecodable {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        if (moreValuesThan(bytes, maxNodes)) {
            throw new Undecodable("Can't decode text (JSON) request. " + tooManyValues(maxNodes));
        }
        try {
            JsonNode node = StrictJson.read(bytes);
            if (node == null || node.isMissingNode()) {
                throw new Undecodable("Can't decode text (JSON) request. The frame holds no document.");
            }
            return node;
        } catch (IOException | RuntimeException e) {
            throw new Undecodable("Can't decode text (JSON) request. " + reason(e));
        }
    }

    /**
     * Reads a binary frame: {@link MessagePackCheck} walks it first, refusing any length it declares beyond its bytes,
     * so Jackson reads only a frame that is what it says (no allocation larger than the frame).
     */
    static JsonNode readBinary(byte[] frame, int maxNodes) throws Undecodable {
        MessagePackCheck.check(frame, MAX_DEPTH, maxNodes);
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
                throw new Undecodable("Can't decode binary (MessagePack) request. " + NOT_JSON);
            }
            return node;
        } catch (IOException | RuntimeException e) {
            throw new Undecodable("Can't decode binary (MessagePack) request. " + reason(e));
        }
    }

    /** Why a frame of more than {@code maxNodes} values is refused. */
    static String tooManyValues(int maxNodes) {
        return "It holds more than " + maxNodes + " values (objects, arrays and scalars).";
    }

    /**
     * Whether the JSON document in {@code bytes} holds more than {@code maxNodes} values, counted on the parser's
     * tokens without building anything. A document that does not parse is left to {@link StrictJson} to describe.
     */
    private static boolean moreValuesThan(byte[] bytes, int maxNodes) {
        int values = 0;
        try (JsonParser parser = JSON.getFactory().createParser(bytes)) {
            for (JsonToken token = parser.nextToken(); token != null; token = parser.nextToken()) {
                if (token != JsonToken.FIELD_NAME && !token.isStructEnd() && ++values > maxNodes) {
                    return true;
                }
            }
        } catch (IOException | RuntimeException unparsable) {
            return false;
        }
        return false;
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
    static String reason(Exception e) {
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
