package io.pigeon.dispatch;

/**
 * The one rule for text a tenant puts into a mail's header (a subscription's {@code options.subject} and
 * {@code options.from}, and the {@code ?subject=} of a {@code mailto:} subscriber once decoded): so that whichever way a
 * subject is given, the same text is refused for the same reason. A line break would end the header and could start
 * another; a separator (U+2028, U+2029) is one to some mail programs; a format character (a byte-order mark, a
 * direction override such as U+202E) is not seen by a reader but changes what is shown.
 */
public final class MailHeaders {

    /** The longest header text a tenant may give, in characters: a subject or a sender fits on one header line. */
    public static final int MAX_LENGTH = 255;

    private MailHeaders() {}

    /** Why {@code text}, given as {@code field}, cannot go into a mail's header, or null when it can. */
    public static String refusal(String field, String text) {
        if (text.codePoints().anyMatch(MailHeaders::unseen)) {
            return field + " may not contain control characters (line breaks and separators, format characters "
                    + "included): it is written into a mail's header.";
        }
        if (text.length() > MAX_LENGTH) {
            return field + " may be at most " + MAX_LENGTH + " characters long: it is written into a mail's header.";
        }
        return null;
    }

    /**
     * Why a {@code mailto:} subscriber's URI cannot be mailed, or null when it can: its address (the To header) and
     * its {@code ?subject=} (the Subject header), decoded as a mail is made from them, under {@link #refusal}.
     */
    public static String subscriberRefusal(String subscriber) {
        String refusal = refusal("subscriber's address", ZaqarMail.uriAddress(subscriber));
        String subject = ZaqarMail.uriSubject(subscriber);
        return refusal == null && subject != null ? refusal("subscriber's ?subject=", subject) : refusal;
    }

    /**
     * A character a mail header should not carry: a control character, a line or paragraph separator, or a format
     * character.
     */
    static boolean unseen(int codePoint) {
        int type = Character.getType(codePoint);
        return type == Character.CONTROL
                || type == Character.FORMAT
                || type == Character.LINE_SEPARATOR
                || type == Character.PARAGRAPH_SEPARATOR;
    }
}
