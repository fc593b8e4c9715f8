package io.pigeon.api;

import io.pigeon.message.MessageIds;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/** The {@code next} link of a message page: the caller's own options, with the marker moved past the page. */
public final class NextLinks {

    private NextLinks() {
    }

    /**
     * @param messagesHref the listing's path, e.g. {@code /v2/queues/q/messages}
     * @param flags        boolean options the caller gave, in order (absent ones are null and left out)
     */
    public static String messages(String messagesHref, long lastId, String limitParam, Map<String, Boolean> flags) {
        StringBuilder href = new StringBuilder(messagesHref).append("?marker=").append(MessageIds.format(lastId));
        if (limitParam != null) {
            href.append("&limit=").append(URLEncoder.encode(limitParam.trim(), StandardCharsets.UTF_8));
        }
        flags.forEach((name, value) -> {
            if (value != null) {
                href.append('&').append(name).append('=').append(value);
            }
        });
        return href.toString();
    }

    /** Flags in the order given, keeping nulls (absent options). */
    public static Map<String, Boolean> flags(String name, Boolean value, Object... more) {
        Map<String, Boolean> flags = new LinkedHashMap<>();
        flags.put(name, value);
        for (int i = 0; i + 1 < more.length; i += 2) {
            flags.put((String) more[i], (Boolean) more[i + 1]);
        }
        return flags;
    }
}
