package io.pigeon.ids;

/** Hexadecimal digits, checked by hand: ids are checked several times per request on the hot path. */
public final class Hex {

    private Hex() {}

    /** Whether every character is an ASCII hexadecimal digit (either case); false for the empty string. */
    public static boolean isHex(CharSequence text) {
        if (text.length() == 0) {
            return false;
        }
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) {
                return false;
            }
        }
        return true;
    }
}
