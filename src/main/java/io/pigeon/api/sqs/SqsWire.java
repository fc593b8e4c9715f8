package io.pigeon.api.sqs;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.pigeon.sqs.SqsRefusal;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.Map;

/**
 * Writes answers and errors as AWS writes them in each protocol. JSON 1.0: the output as one object; an error as
 * {@code {"__type": ..., "message": ...}} with the {@code x-amzn-query-error} header (see {@link SqsErrors}). Query:
 * {@code <XResponse xmlns=...><XResult>...</XResult><ResponseMetadata><RequestId>} and {@code
 * <ErrorResponse><Error><Type/><Code/><Message/><Detail/></Error><RequestId/></ErrorResponse>}.
 */
final class SqsWire {

    static final String JSON_TYPE = "application/x-amz-json-1.0";
    static final String XML_TYPE = "text/xml";
    static final String NAMESPACE = "http://queue.amazonaws.com/doc/2012-11-05/";

    private static final JsonFactory JSON = new JsonFactory();

    private SqsWire() {}

    static String json(SqsAnswer answer) {
        StringWriter text = new StringWriter();
        try (JsonGenerator out = JSON.createGenerator(text)) {
            object(out, answer);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return text.toString();
    }

    static String jsonError(SqsErrors.Written written, String message) {
        StringWriter text = new StringWriter();
        try (JsonGenerator out = JSON.createGenerator(text)) {
            out.writeStartObject();
            out.writeStringField("__type", written.type());
            out.writeStringField("message", message);
            out.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return text.toString();
    }

    static String xml(String action, SqsAnswer answer, String requestId) {
        StringBuilder out = new StringBuilder(256);
        out.append("<?xml version=\"1.0\"?><")
                .append(action)
                .append("Response xmlns=\"")
                .append(NAMESPACE)
                .append("\">");
        if (answer.hasResult()) {
            out.append('<').append(action).append("Result>");
            fields(out, answer);
            out.append("</").append(action).append("Result>");
        }
        out.append("<ResponseMetadata><RequestId>")
                .append(requestId)
                .append("</RequestId></ResponseMetadata></")
                .append(action)
                .append("Response>");
        return out.toString();
    }

    static String xmlError(SqsErrors.Written written, String message, String requestId) {
        StringBuilder out = new StringBuilder(256);
        out.append("<?xml version=\"1.0\"?><ErrorResponse xmlns=\"")
                .append(NAMESPACE)
                .append("\"><Error><Type>")
                .append(written.senderFault() ? "Sender" : "Receiver")
                .append("</Type><Code>")
                .append(written.code())
                .append("</Code><Message>");
        escape(out, message);
        out.append("</Message><Detail/></Error><RequestId>").append(requestId).append("</RequestId></ErrorResponse>");
        return out.toString();
    }

    /** The message of a refusal, as written. */
    static String message(SqsRefusal refusal) {
        return refusal.getMessage() == null ? "" : refusal.getMessage();
    }

    /**
     * The message of a refusal as the query protocol writes it: AWS's query answer for a missing queue still names the
     * WSDL version (its JSON answer does not), and botocore releases that speak the query protocol see that text.
     */
    static String queryMessage(SqsRefusal refusal) {
        return refusal.reason() == SqsRefusal.Reason.QUEUE_DOES_NOT_EXIST
                ? "The specified queue does not exist for this wsdl version."
                : message(refusal);
    }

    private static void object(JsonGenerator out, SqsAnswer answer) throws IOException {
        out.writeStartObject();
        for (SqsAnswer.Field field : answer.fields()) {
            out.writeFieldName(field.json());
            value(out, field.value());
        }
        out.writeEndObject();
    }

    private static void value(JsonGenerator out, Object value) throws IOException {
        if (value instanceof String text) {
            out.writeString(text);
        } else if (value instanceof Integer || value instanceof Long) {
            out.writeNumber(((Number) value).longValue());
        } else if (value instanceof Number number) {
            out.writeNumber(number.toString());
        } else if (value instanceof Boolean bool) {
            out.writeBoolean(bool);
        } else if (value instanceof SqsAnswer structure) {
            object(out, structure);
        } else if (value instanceof SqsAnswer.Strings strings) {
            out.writeStartArray();
            for (String member : strings.values()) {
                out.writeString(member);
            }
            out.writeEndArray();
        } else if (value instanceof SqsAnswer.Structures structures) {
            out.writeStartArray();
            for (SqsAnswer member : structures.values()) {
                object(out, member);
            }
            out.writeEndArray();
        } else if (value instanceof SqsAnswer.Entries entries) {
            out.writeStartObject();
            for (Map.Entry<String, ?> entry : entries.values().entrySet()) {
                out.writeFieldName(entry.getKey());
                value(out, entry.getValue());
            }
            out.writeEndObject();
        } else {
            throw new IllegalArgumentException("not an answer's value: " + value.getClass());
        }
    }

    private static void fields(StringBuilder out, SqsAnswer answer) {
        for (SqsAnswer.Field field : answer.fields()) {
            String name = field.xml();
            Object value = field.value();
            if (value instanceof SqsAnswer.Strings strings) {
                for (String member : strings.values()) {
                    element(out, name, member);
                }
            } else if (value instanceof SqsAnswer.Structures structures) {
                for (SqsAnswer member : structures.values()) {
                    nested(out, name, member);
                }
            } else if (value instanceof SqsAnswer.Entries entries) {
                for (Map.Entry<String, ?> entry : entries.values().entrySet()) {
                    out.append('<').append(name).append('>');
                    element(out, entries.key(), entry.getKey());
                    if (entry.getValue() instanceof SqsAnswer structure) {
                        nested(out, entries.value(), structure);
                    } else {
                        element(out, entries.value(), String.valueOf(entry.getValue()));
                    }
                    out.append("</").append(name).append('>');
                }
            } else if (value instanceof SqsAnswer structure) {
                nested(out, name, structure);
            } else {
                element(out, name, String.valueOf(value));
            }
        }
    }

    private static void nested(StringBuilder out, String name, SqsAnswer structure) {
        out.append('<').append(name).append('>');
        fields(out, structure);
        out.append("</").append(name).append('>');
    }

    private static void element(StringBuilder out, String name, String text) {
        out.append('<').append(name).append('>');
        escape(out, text);
        out.append("</").append(name).append('>');
    }

    /**
     * XML text: markup characters as entities, a carriage return as {@code &#xD;} (XML would fold it), and a character
     * XML 1.0 cannot carry at all (controls, U+FFFE/U+FFFF, a lone surrogate: a Zaqar body, a tag set through Zaqar's
     * metadata or a value echoed in an error may hold one) as U+FFFD, so that every answer stays a document.
     */
    private static void escape(StringBuilder out, String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                out.append(c).append(text.charAt(++i));
                continue;
            }
            if (!xmlCharacter(c)) {
                out.append('\uFFFD');
                continue;
            }
            switch (c) {
                case '&' -> out.append("&amp;");
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '"' -> out.append("&quot;");
                case '\'' -> out.append("&apos;");
                case '\r' -> out.append("&#xD;");
                default -> out.append(c);
            }
        }
    }

    /** Whether XML 1.0 can carry {@code c} alone (a surrogate only in a pair, which the caller takes first). */
    private static boolean xmlCharacter(char c) {
        return c == 0x9 || c == 0xA || c == 0xD || (c >= 0x20 && c <= 0xD7FF) || (c >= 0xE000 && c <= 0xFFFD);
    }
}
