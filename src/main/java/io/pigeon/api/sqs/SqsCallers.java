package io.pigeon.api.sqs;

import io.pigeon.rules.Rejection;
import io.pigeon.sqs.SqsRefusal;
import io.pigeon.tenancy.AuthSettings;
import io.pigeon.tenancy.Projects;
import io.quarkus.runtime.StartupEvent;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.Map;
import org.jboss.logging.Logger;

/**
 * Which project an SQS request acts for. SQS names no project: its access key id does. With {@code pigeon.auth.mode=none}
 * (development) the access key id of the request's credential (the {@code Authorization} header's
 * {@code Credential=AKID/...}, or a pre-signed request's {@code X-Amz-Credential}) is the project's id and the
 * signature is not checked, which the start-up log says loudly. In any other mode a request is verified by
 * {@link #verified}, the one method a Signature Version 4 verifier plugs into; until it does, every request there is
 * refused as AWS refuses an unknown key.
 */
@ApplicationScoped
public class SqsCallers {

    private static final Logger LOG = Logger.getLogger(SqsCallers.class);

    private static final String CREDENTIAL = "Credential=";

    private final AuthSettings auth;

    SqsCallers(AuthSettings auth) {
        this.auth = auth;
    }

    void announce(@Observes StartupEvent started) {
        if (auth.mode() == AuthSettings.Mode.NONE) {
            LOG.warn("SQS API: pigeon.auth.mode=none, so an SQS request's access key id NAMES ITS PROJECT and its"
                    + " signature is NOT CHECKED: any client may act for any project. For development only.");
        } else {
            LOG.info("SQS API: requests are refused until access keys are issued (pigeon.auth.mode is not none).");
        }
    }

    /** The project the request acts for, or a refusal with AWS's error. */
    Uni<String> project(SignedRequest request, Map<String, String> queryString) {
        if (auth.mode() == AuthSettings.Mode.NONE) {
            return Uni.createFrom().item(() -> unsigned(request, queryString));
        }
        return verified(request);
    }

    /**
     * The seam for Signature Version 4: the project whose access key signed {@code request}, checked against the key's
     * secret, or a failure with {@link SqsRefusal} ({@code InvalidClientTokenId}, {@code SignatureDoesNotMatch},
     * {@code RequestExpired}, {@code IncompleteSignature}, {@code MissingAuthenticationToken}). No verifier yet.
     */
    Uni<String> verified(SignedRequest request) {
        return Uni.createFrom()
                .failure(
                        accessKeyId(request, Map.of()) == null
                                ? missingToken()
                                : new SqsRefusal(
                                        SqsRefusal.Reason.INVALID_CLIENT_TOKEN_ID,
                                        "The security token included in the request is invalid."));
    }

    private static String unsigned(SignedRequest request, Map<String, String> queryString) {
        String keyId = accessKeyId(request, queryString);
        if (keyId == null) {
            throw missingToken();
        }
        try {
            return Projects.required(keyId);
        } catch (Rejection e) {
            throw new SqsRefusal(
                    SqsRefusal.Reason.INVALID_CLIENT_TOKEN_ID,
                    "The security token included in the request is invalid: with authentication off, the access key"
                            + " id names the project (1 to " + Projects.MAX_PROJECT_ID_LENGTH
                            + " printable ASCII characters).");
        }
    }

    /** The access key id of the request's credential (header first, then a pre-signed query string); null if none. */
    static String accessKeyId(SignedRequest request, Map<String, String> queryString) {
        String authorization = request.header("Authorization");
        if (authorization != null) {
            int at = authorization.indexOf(CREDENTIAL);
            if (at >= 0) {
                return beforeSlash(authorization.substring(at + CREDENTIAL.length()));
            }
        }
        String credential = queryString.get("X-Amz-Credential");
        return credential == null ? null : beforeSlash(credential);
    }

    private static String beforeSlash(String credential) {
        int end = 0;
        while (end < credential.length() && "/, ".indexOf(credential.charAt(end)) < 0) {
            end++;
        }
        return end == 0 ? null : credential.substring(0, end);
    }

    private static SqsRefusal missingToken() {
        return new SqsRefusal(
                SqsRefusal.Reason.MISSING_AUTHENTICATION_TOKEN, "Request is missing Authentication Token");
    }
}
