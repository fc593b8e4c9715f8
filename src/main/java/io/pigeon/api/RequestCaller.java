package io.pigeon.api;

import io.pigeon.tenancy.Caller;
import io.pigeon.tenancy.Projects;
import jakarta.enterprise.context.RequestScoped;
import java.time.Instant;
import java.util.Optional;

/**
 * The caller of the current request, resolved once by {@link Authentication} (from the token, or from the
 * request's own headers with authentication off) and injected where a resource needs it. Each API version
 * decides what a request that names no project means.
 */
@RequestScoped
public class RequestCaller {

    private Caller caller = new Caller(null, false);

    void resolved(Caller caller) {
        this.caller = caller;
    }

    /** v2: the project must be named (by the header, or by a token that grants exactly one). */
    public String requiredProject() {
        return Projects.required(caller.project());
    }

    /** v1 and v3: a request that names no project acts for the default project. */
    public String optionalProject() {
        return Projects.optional(caller.project());
    }

    /**
     * The expiry of the pre-signed URL that admitted the request (its receiver acts, not the project's own
     * credentials); empty otherwise.
     */
    public Optional<Instant> grantExpiry() {
        return caller.grantExpiry();
    }

    /**
     * The signature of the pre-signed URL that admitted the request, which its waiting claims and pops count against
     * instead of the project's bound; empty when its own credentials did.
     */
    public Optional<String> grantSignature() {
        return caller.grantSignature();
    }

    public boolean operator() {
        return caller.operator();
    }

    /** A v2 admin call (pools, flavor changes) names its project, as every v2 call does, and is the operator's. */
    public void requireProjectAndOperator() {
        requiredProject();
        requireOperator();
    }

    /** Zaqar's refusal of an admin call (health, pools, flavor changes) to anyone but the operator. */
    public void requireOperator() {
        if (!caller.operator()) {
            throw new ApiException(403, "Not authorized", "You are not authorized to complete this action.");
        }
    }
}
