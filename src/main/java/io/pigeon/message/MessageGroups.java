package io.pigeon.message;

import io.pigeon.rules.Rejection;

/**
 * The bound of a message's group, the same on both APIs: SQS's of MessageGroupId, 1 to {@value #MAX_LENGTH}
 * alphanumeric and punctuation characters (visible ASCII, no space), so that a group posted through either API can be
 * named through the other. Migration V30 bounds the column by length as well.
 */
public final class MessageGroups {

    /** SQS's bound of MessageGroupId. */
    public static final int MAX_LENGTH = 128;

    private MessageGroups() {}

    /** Whether {@code group} is a group a message may be posted in. */
    public static boolean valid(String group) {
        if (group == null || group.isEmpty() || group.length() > MAX_LENGTH) {
            return false;
        }
        for (int i = 0; i < group.length(); i++) {
            char c = group.charAt(i);
            if (c < 0x21 || c > 0x7e) {
                return false;
            }
        }
        return true;
    }

    /** {@code group} when it is valid, else the refusal of a Zaqar post that names it as {@code "group"}. */
    public static String checked(String group) {
        if (!valid(group)) {
            throw Rejection.invalidBody(expectation());
        }
        return group;
    }

    /** What a group must be, as a refusal says it. */
    public static String expectation() {
        return "\"group\" must be a string of 1 to " + MAX_LENGTH
                + " visible ASCII characters (letters, digits and punctuation; no spaces).";
    }
}
