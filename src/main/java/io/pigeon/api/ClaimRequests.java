package io.pigeon.api;

import io.pigeon.claim.Claim;
import io.pigeon.claim.ClaimService;
import io.pigeon.ids.Uuids;
import io.pigeon.queue.QueueName;
import io.smallrye.mutiny.Uni;
import java.util.Optional;
import java.util.UUID;

/**
 * Claim requests by the claim id a path names, the same in every version: an id that is not a canonical UUID
 * names no claim (404 to read or renew, nothing to release). As everywhere, a refusal known before the database
 * is asked is thrown; one the database's answer decides fails the {@code Uni}.
 */
public final class ClaimRequests {

    private ClaimRequests() {
    }

    public static Uni<Claim> get(ClaimService claims, String project, QueueName queue, String claimId) {
        UUID id = Uuids.parseCanonical(claimId).orElseThrow(() -> ClaimService.claimNotFound(project, queue, claimId));
        return claims.get(project, queue, id)
                .map(found -> found.orElseThrow(() -> ClaimService.claimNotFound(project, queue, claimId)));
    }

    /**
     * Renews the claim. The terms are checked before the id, as they were read first: the service checks them for
     * a well-formed id, and for an id that names no claim they are checked here before the 404.
     */
    public static Uni<Void> renew(ClaimService claims, String project, QueueName queue, String claimId,
            ClaimService.RequestedTerms terms) {
        Optional<UUID> id = Uuids.parseCanonical(claimId);
        if (id.isEmpty()) {
            claims.checkRenewal(terms);
            throw ClaimService.claimNotFound(project, queue, claimId);
        }
        return claims.renew(project, queue, id.get(), terms).map(renewed -> {
            if (!renewed) {
                throw ClaimService.claimNotFound(project, queue, claimId);
            }
            return null;
        });
    }

    public static Uni<Void> release(ClaimService claims, String project, QueueName queue, String claimId) {
        Optional<UUID> id = Uuids.parseCanonical(claimId);
        return id.isEmpty() ? Uni.createFrom().voidItem() : claims.release(project, queue, id.get());
    }
}
