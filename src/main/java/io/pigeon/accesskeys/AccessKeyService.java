package io.pigeon.accesskeys;

import io.pigeon.rules.Rejection;
import io.pigeon.tenancy.AuthSettings;
import io.quarkus.runtime.StartupEvent;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import org.jboss.logging.Logger;

/**
 * A project's access keys for the SQS API, and the check of a signed request against them: make a key (its secret
 * answered once), list them (never a secret), revoke one, and {@link #verify} a request, which every SQS request
 * passes before anything else. In auth mode {@code none} nothing is checked: the access key id a request names is
 * its project, as {@code X-Project-Id} is on the Zaqar API (said at start).
 */
@ApplicationScoped
public class AccessKeyService {

    /** The credential scope's service of every signed SQS request. */
    public static final String SERVICE = "sqs";
    /** An access key id: 20 characters, as AWS's, "PGNK" and 16 of base32 (80 random bits). */
    public static final Pattern KEY_ID = Pattern.compile("PGNK[A-Z2-7]{16}");

    private static final char[] BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".toCharArray();
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final Logger LOG = Logger.getLogger(AccessKeyService.class);

    private final AccessKeyStore store;
    private final KeyDerivation derivation;
    private final AccessKeySettings settings;
    private final boolean checkSignatures;
    private final SigV4Verifier verifier;
    private final LiveKeyCache cache;

    public AccessKeyService(
            AccessKeyStore store, KeyDerivation derivation, AccessKeySettings settings, AuthSettings auth) {
        this.store = store;
        this.derivation = derivation;
        this.settings = settings;
        this.checkSignatures = auth.mode() != AuthSettings.Mode.NONE;
        this.verifier = new SigV4Verifier(SERVICE, settings.maxClockSkew());
        this.cache = new LiveKeyCache(settings.keyCacheTtl());
    }

    void announce(@Observes StartupEvent start) {
        if (!checkSignatures) {
            LOG.warn("pigeon.auth.mode=none: SQS requests are NOT authenticated. The access key id a request is"
                    + " signed with names its project and signatures are not checked: anyone who reaches Pigeon may"
                    + " act for any project. Use it only for development, or behind something that authenticates.");
        } else if (derivation.current().isEmpty()) {
            LOG.warn("No pigeon.encryption.keys are configured: SQS access keys cannot be made, and the SQS API"
                    + " refuses every request (access key secrets are derived from the message keys).");
        }
    }

    /** Makes an access key for {@code project}: its secret is in this answer only. */
    public Uni<NewAccessKey> create(String project) {
        String root = derivation
                .current()
                .orElseThrow(() -> new Rejection(
                        Rejection.Reason.UNAVAILABLE,
                        "Access keys are derived from the deployment's message keys, and none is configured"
                                + " (pigeon.encryption.keys)."));
        String id = newKeyId();
        String secret = derivation.secret(root, id, project).orElseThrow();
        return store.create(project, id, root, settings.maxPerProject()).map(created -> {
            Instant at = created.orElseThrow(() -> new Rejection(
                    Rejection.Reason.QUOTA_REACHED,
                    "A project may hold " + settings.maxPerProject() + " live access keys"
                            + " (pigeon.access-keys.max-per-project), and as many revoked within a day:"
                            + " revoke one first."));
            return new NewAccessKey(id, secret, at);
        });
    }

    /** The project's keys, live and revoked within a day, oldest first; never a secret. */
    public Uni<List<AccessKey>> list(String project) {
        return store.list(project);
    }

    /** Revokes a key of {@code project}: from now on a request it signs is refused. Not found when not its own. */
    public Uni<Void> revoke(String project, String accessKeyId) {
        Uni<Boolean> revoked = KEY_ID.matcher(accessKeyId).matches()
                ? store.revoke(project, accessKeyId).invoke(() -> cache.forget(accessKeyId))
                : Uni.createFrom().item(false);
        return revoked.map(found -> {
            if (!found) {
                throw new Rejection(
                        Rejection.Reason.NOT_FOUND, "This project has no access key " + bounded(accessKeyId));
            }
            return null;
        });
    }

    /**
     * Who signed {@code request}: the project of the live key whose secret signed it, or the refusal AWS answers
     * with. In auth mode {@code none}, the project the request's access key id names, unchecked.
     */
    public Uni<SignedCaller> verify(SignedRequest request) {
        if (!checkSignatures) {
            return Uni.createFrom().item(unchecked(request));
        }
        SigV4Verifier.Reading reading = verifier.read(request, Instant.now());
        if (reading.refusal() != null) {
            return Uni.createFrom().item(reading.refusal());
        }
        SignatureClaim claim = reading.claim();
        if (!KEY_ID.matcher(claim.accessKeyId()).matches()) {
            return Uni.createFrom().item(SigV4Verifier.check(claim, Optional.empty()));
        }
        return cache.find(claim.accessKeyId(), this::liveKey).map(found -> SigV4Verifier.check(claim, found));
    }

    /** The live key {@code accessKeyId} from the database, with its secret derived; empty when unknown or revoked. */
    private Uni<Optional<KeySecrets.KeySecret>> liveKey(String accessKeyId) {
        return store.find(accessKeyId)
                .map(found -> found.flatMap(key -> derivation
                        .secret(key.derivedFrom(), accessKeyId, key.project())
                        .map(secret -> new KeySecrets.KeySecret(key.project(), secret))));
    }

    private static SignedCaller unchecked(SignedRequest request) {
        Optional<String> id = SigV4Verifier.accessKeyIdOf(request);
        if (id.isEmpty()) {
            return SignedCaller.refused(
                    SignatureRefusal.MISSING_AUTHENTICATION_TOKEN,
                    "Request is missing Authentication Token (with authentication off, the access key id names the"
                            + " project)");
        }
        String project = id.get();
        if (project.length() > 256 || !project.chars().allMatch(c -> c >= 0x21 && c <= 0x7e)) {
            return SignedCaller.refused(
                    SignatureRefusal.INVALID_CLIENT_TOKEN_ID,
                    "With authentication off the access key id names the project: 1 to 256 printable ASCII"
                            + " characters without spaces.");
        }
        return SignedCaller.of(project, project);
    }

    private static String newKeyId() {
        StringBuilder id = new StringBuilder("PGNK");
        for (int i = 0; i < 16; i++) {
            id.append(BASE32[RANDOM.nextInt(BASE32.length)]);
        }
        return id.toString();
    }

    private static String bounded(String text) {
        return text.length() <= 64 ? text : text.substring(0, 64) + "...";
    }
}
