package io.pigeon.api;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * Bytes read as UTF-8 only when they are UTF-8: every door that takes text from raw bytes (a form, a query string, a
 * MessagePack string) refuses what does not decode, in its own words, rather than reading it as U+FFFD, which would
 * store a text the client never sent.
 */
public final class StrictUtf8 {

    private StrictUtf8() {}

    /** {@code length} bytes of {@code bytes} from 0 as text; empty when they are not UTF-8. */
    public static Optional<String> decode(byte[] bytes, int length) {
        try {
            return Optional.of(StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes, 0, length))
                    .toString());
        } catch (CharacterCodingException notUtf8) {
            return Optional.empty();
        }
    }
}
