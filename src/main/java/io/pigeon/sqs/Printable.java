package io.pigeon.sqs;

/**
 * A value a client sent, made safe to repeat in an error message: at most {@value #MAX} characters, control characters
 * and anything outside printable ASCII shown as {@code ?}, so that an answer never carries bytes a log or a terminal
 * would act on, nor grows with the request.
 */
public final class Printable {

    static final int MAX = 256;

    private Printable() {}

    public static String of(String value) {
        if (value == null) {
            return "null";
        }
        StringBuilder shown = new StringBuilder(Math.min(value.length(), MAX) + 3);
        for (int i = 0; i < value.length() && i < MAX; i++) {
            char c = value.charAt(i);
            shown.append(c >= 0x20 && c < 0x7f ? c : '?');
        }
        if (value.length() > MAX) {
            shown.append("...");
        }
        return shown.toString();
    }
}
