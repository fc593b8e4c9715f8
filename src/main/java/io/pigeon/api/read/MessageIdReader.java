package io.pigeon.api.read;

import io.pigeon.ids.Uuids;
import io.pigeon.message.MessageIds;
import io.pigeon.message.RequestedIds;
import io.pigeon.rules.Rejection;
import java.util.List;
import java.util.UUID;

/** What message requests name in their paths and queries (ids, claim ids, markers), read the same in every version. */
public final class MessageIdReader {

    /** A malformed claim id can hold nothing: the nil UUID, which no claim has, gives the same answers. */
    private static final UUID NO_SUCH_CLAIM = new UUID(0, 0);

    private MessageIdReader() {}

    /** Past every message: where a marker that names none leaves a listing. */
    private static final long PAST_THE_END = Long.MAX_VALUE;

    /**
     * The row a listing's page starts after, from its {@code marker} (none: 0, the start). A marker that is no
     * message id is not an error: as in Zaqar, the listing answers as if it were past the end (an empty page).
     */
    public static long after(String marker) {
        return marker == null ? 0L : MessageIds.parse(marker).orElse(PAST_THE_END);
    }

    /** A claim id as a request names it; a malformed one holds nothing. */
    public static UUID claim(String claimId) {
        return Uuids.parseCanonical(claimId).orElse(NO_SUCH_CLAIM);
    }

    /** The claim id a delete names ({@code claim_id}), none when it names none; a malformed one holds nothing. */
    public static UUID claimIfNamed(String claimId) {
        return claimId == null ? null : claim(claimId);
    }

    /** The {@code ids} of a bulk delete (read by {@link IdListReader}), which are required. */
    public static RequestedIds requiredIds(List<String> ids) {
        if (ids == null) {
            throw new Rejection(Rejection.Reason.MISSING_PARAMETER, "The \"ids\" parameter is required.");
        }
        return RequestedIds.of(ids);
    }
}
