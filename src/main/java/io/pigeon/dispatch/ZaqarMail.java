package io.pigeon.dispatch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pigeon.json.PythonJson;
import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * A mail as Zaqar 15's mail task ({@code zaqar/notification/tasks/mailto.py}) makes it from a {@code mailto:}
 * subscriber and what the dispatcher stored for it: to the subscriber's address (the URI's path); for a message's
 * notification, the subject of the URI's {@code ?subject=} or else the subscription's {@code subject} option, the
 * sender its {@code from} option, and as text the notification document as Python's {@code json.dumps} writes it
 * ({@code ttl}, {@code body}, {@code Message_Type}, {@code queue_name}, ASCII only, {@code ", "} and {@code ": "}
 * between items); for a confirmation request, its fixed subject ({@code topic}) and text as stored.
 *
 * <p>Where Zaqar leaves the sender empty (no {@code from} option) the configured sender ({@code quarkus.mailer.from})
 * is used instead ({@code from} is null here); a {@code from} or subject that would break the mail's header (a line
 * break, an address without {@code @}) or that {@link MailHeaders} refuses (stored before it was checked) is not used
 * either. Whether a {@code from} may be used at all is {@link MailSenders}'s to say.
 *
 * @param to the recipient's address
 * @param from the sender, or null for the configured one
 * @param subject the subject, possibly empty
 * @param text the plain-text body
 */
record ZaqarMail(String to, String from, String subject, String text) {

    /** The prefix of a mail target (a {@code mailto:} subscriber). */
    static final String SCHEME = "mailto:";

    /**
     * A sender the mail can carry: one address, bare ({@code a@b}) or after a display name ({@code Name <a@b>}, the
     * name plain or quoted), with no control character, comma or second address anywhere. Anything else (which the
     * mailer would fail to send on every try, or read as several addresses) is replaced by the configured sender.
     */
    private static final Pattern SENDER = Pattern.compile(
            "(?:(?:\"[^\"\\\\\\p{Cc}\\p{Zl}\\p{Zp}]*\"|[^\",<>@\\p{Cc}\\p{Zl}\\p{Zp}]*)\\s*<[^\\s\",<>@\\p{Cc}\\p{Zl}\\p{Zp}]+@[^\\s\",<>@\\p{Cc}\\p{Zl}\\p{Zp}]+>"
                    + "|[^\\s\",<>@\\p{Cc}\\p{Zl}\\p{Zp}]+@[^\\s\",<>@\\p{Cc}\\p{Zl}\\p{Zp}]+)");

    /** The stored headers' key of a confirmation's subject (Zaqar's template {@code topic}), which no URI overrides. */
    static final String TOPIC = "topic";

    private static final ObjectMapper JSON = new ObjectMapper();

    /** Whether a group's target is a mail address rather than a URL to call. */
    static boolean isMail(String target) {
        return target.regionMatches(true, 0, SCHEME, 0, SCHEME.length());
    }

    /** Whether {@code sender} is one address a mail can carry as its sender (see {@link #SENDER}). */
    static boolean isOneAddress(String sender) {
        return SENDER.matcher(sender).matches();
    }

    /**
     * The subject a {@code mailto:} subscriber's URI gives ({@code ?subject=}, decoded as a mail is made from it), or
     * null when it gives none.
     */
    static String uriSubject(String subscriber) {
        String uri = subscriber.substring(SCHEME.length());
        int query = uri.indexOf('?');
        return query < 0 ? null : queryParameter(uri.substring(query + 1), "subject");
    }

    /** The recipient's address of a {@code mailto:} subscriber's URI, decoded as a mail is made from it. */
    static String uriAddress(String subscriber) {
        String uri = subscriber.substring(SCHEME.length());
        int query = uri.indexOf('?');
        return decode(query < 0 ? uri : uri.substring(0, query), false);
    }

    /** The domain of the recipient: what the per-target rate counts mails by. */
    String domain() {
        return to.substring(to.lastIndexOf('@') + 1).toLowerCase(Locale.ROOT);
    }

    /**
     * The mail for a group's {@code target} ({@code mailto:} URI), {@code headersJson} (the subscription's
     * {@code subject} and {@code from}, or a confirmation's {@code topic}) and {@code body} (a notification document or
     * a confirmation's text); null when the target names no address.
     */
    static ZaqarMail of(String target, String headersJson, String body) {
        String to = uriAddress(target);
        if (to.indexOf('@') <= 0 || to.endsWith("@") || hasLineBreak(to)) {
            return null;
        }
        JsonNode headers = readObject(headersJson);
        JsonNode topic = headers.get(TOPIC);
        if (topic != null && topic.isTextual()) {
            return new ZaqarMail(to, null, oneLine(topic.asText()), body);
        }
        String subject = uriSubject(target);
        if (subject == null) {
            subject = optionText(headers.get("subject"));
        }
        // Stored before the rules of MailHeaders were checked when subscribing: a subject they refuse is left empty.
        if (MailHeaders.refusal("subject", oneLine(subject)) != null) {
            subject = "";
        }
        String from = optionText(headers.get("from"));
        if (!SENDER.matcher(from).matches() || MailHeaders.refusal("from", from) != null) {
            from = null;
        }
        return new ZaqarMail(to, from, oneLine(subject), notificationText(body));
    }

    /**
     * The text of a notification: the document in Zaqar's mail order, as Python writes it; a body that is not a
     * notification document is sent as it is.
     */
    static String notificationText(String body) {
        JsonNode document = readObject(body);
        if (!document.has("Message_Type")) {
            return body;
        }
        StringBuilder text = new StringBuilder("{");
        String separator = "";
        for (String key : new String[] {"ttl", "body", "Message_Type", "queue_name"}) {
            JsonNode value = document.get(key);
            if (value != null) {
                text.append(separator);
                PythonJson.writeString(key, text);
                text.append(": ");
                PythonJson.write(value, text);
                separator = ", ";
            }
        }
        for (Map.Entry<String, JsonNode> field : document.properties()) {
            if (!field.getKey().equals("ttl")
                    && !field.getKey().equals("body")
                    && !field.getKey().equals("Message_Type")
                    && !field.getKey().equals("queue_name")) {
                text.append(separator);
                PythonJson.writeString(field.getKey(), text);
                text.append(": ");
                PythonJson.write(field.getValue(), text);
                separator = ", ";
            }
        }
        return text.append('}').toString();
    }

    /** Zaqar's {@code options.get(key, '')} written into a header: a string as it is, anything else as text. */
    private static String optionText(JsonNode option) {
        if (option == null || option.isNull()) {
            return "";
        }
        return option.isTextual() ? option.asText() : PythonJson.dumps(option);
    }

    /**
     * The first non-blank value of {@code name} in a query (names compared ignoring case), decoded as Python's
     * {@code parse_qs} does; null when there is none.
     */
    private static String queryParameter(String query, String name) {
        for (String pair : query.split("[&;]")) {
            int equals = pair.indexOf('=');
            if (equals < 0) {
                continue;
            }
            String key = decode(pair.substring(0, equals), true);
            String value = decode(pair.substring(equals + 1), true);
            if (key.equalsIgnoreCase(name) && !value.isEmpty()) {
                return value;
            }
        }
        return null;
    }

    private static String decode(String text, boolean plusIsSpace) {
        try {
            return URLDecoder.decode(plusIsSpace ? text : text.replace("+", "%2B"), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            // A stray '%': taken as it is, as Python's unquote does.
            return text;
        }
    }

    private static boolean hasLineBreak(String text) {
        return text.indexOf('\r') >= 0 || text.indexOf('\n') >= 0;
    }

    /** A header's value on one line: a line break would end the header (and could start another). */
    private static String oneLine(String text) {
        return text.replace("\r\n", " ").replace('\r', ' ').replace('\n', ' ');
    }

    private static JsonNode readObject(String json) {
        if (json == null) {
            return JSON.createObjectNode();
        }
        try {
            JsonNode node = JSON.readTree(json);
            return node != null && node.isObject() ? node : JSON.createObjectNode();
        } catch (IOException e) {
            return JSON.createObjectNode();
        }
    }
}
