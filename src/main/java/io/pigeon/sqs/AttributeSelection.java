package io.pigeon.sqs;

import java.util.Collection;

/**
 * Which message attributes a ReceiveMessage asks for ({@code MessageAttributeNames}): names, {@code All} or
 * {@code .*} for every one, or {@code prefix.*} for those whose names start with {@code prefix.} (SQS's rule).
 */
final class AttributeSelection {

    private AttributeSelection() {}

    static boolean matches(Collection<String> asked, String name) {
        for (String wanted : asked) {
            if (wanted.equals("All") || wanted.equals(".*") || wanted.equals(name)) {
                return true;
            }
            if (wanted.endsWith(".*") && name.startsWith(wanted.substring(0, wanted.length() - 1))) {
                return true;
            }
        }
        return false;
    }
}
