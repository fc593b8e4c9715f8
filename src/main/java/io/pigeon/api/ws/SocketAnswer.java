package io.pigeon.api.ws;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;

/** What a request frame is answered: an HTTP status and the answer's body, which Zaqar sends even with a 204. */
record SocketAnswer(int status, JsonNode body) {

    /** Zaqar's answer to a frame refused before any endpoint ran: {@code {"error": text}}. */
    static SocketAnswer error(int status, String text) {
        ObjectNode body = FrameCodec.object();
        body.put("error", text);
        return new SocketAnswer(status, body);
    }

    /**
     * Zaqar's answer to a request an endpoint refused: {@code {"exception": text, "error": friendly}}, the friendly
     * text null where Zaqar has none.
     */
    static SocketAnswer exception(int status, String exception, String friendly) {
        ObjectNode body = FrameCodec.object();
        body.put("exception", exception);
        body.put("error", friendly);
        return new SocketAnswer(status, body);
    }

    /** An answer whose body is a sentence ("Queue q created."). */
    static SocketAnswer text(int status, String text) {
        return new SocketAnswer(status, TextNode.valueOf(text));
    }

    static SocketAnswer empty(int status) {
        return new SocketAnswer(status, FrameCodec.object());
    }

    /** The whole answer frame: the request echoed, the body, and the status. */
    ObjectNode envelope(SocketRequest request, boolean echoHeaders) {
        ObjectNode echoed = FrameCodec.object();
        echoed.set("action", request.action() == null ? echoed.nullNode() : request.action());
        echoed.set("body", request.body() == null ? FrameCodec.object() : request.body());
        echoed.set(
                "headers", request.headers() == null || !echoHeaders ? FrameCodec.object() : echoed(request.headers()));
        echoed.put("api", "v2");
        ObjectNode frame = FrameCodec.object();
        frame.set("request", echoed);
        frame.set("body", body);
        frame.putObject("headers").put("status", status);
        return frame;
    }

    /**
     * The request's headers as echoed: all but a token ({@code X-Auth-Token}, however spelt), which is never sent
     * back.
     */
    private static JsonNode echoed(JsonNode headers) {
        if (!(headers instanceof ObjectNode object)) {
            return headers;
        }
        ObjectNode copy = null;
        for (var names = object.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (name.equalsIgnoreCase(FrameSchema.AUTH_TOKEN)) {
                copy = copy == null ? object.deepCopy() : copy;
                copy.remove(name);
            }
        }
        return copy == null ? headers : copy;
    }
}
