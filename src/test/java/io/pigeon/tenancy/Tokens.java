package io.pigeon.tenancy;

import io.smallrye.jwt.build.Jwt;
import io.smallrye.jwt.build.JwtClaimsBuilder;
import java.time.Instant;
import java.util.Set;

/** Signed access tokens from the mock OIDC server's key, with the claims each test needs. */
public final class Tokens {

    private Tokens() {}

    /** A valid token whose projects claim is {@code projects} (a String or a List), with {@code roles}. */
    public static String valid(Object projects, String... roles) {
        return builder(OidcProfile.ISSUER, projects, roles)
                .expiresIn(300)
                .jws()
                .keyId("1")
                .sign();
    }

    /** A valid token for {@code projects} that expires {@code seconds} from now. */
    public static String expiringIn(int seconds, Object projects) {
        return builder(OidcProfile.ISSUER, projects)
                .expiresIn(seconds)
                .jws()
                .keyId("1")
                .sign();
    }

    public static String forAudience(String audience, Object projects) {
        return Jwt.issuer(OidcProfile.ISSUER)
                .subject("worker")
                .upn("worker")
                .audience(audience)
                .claim("projects", projects)
                .expiresIn(300)
                .jws()
                .keyId("1")
                .sign();
    }

    public static String withoutAudience(Object projects) {
        return Jwt.issuer(OidcProfile.ISSUER)
                .subject("worker")
                .upn("worker")
                .claim("projects", projects)
                .expiresIn(300)
                .jws()
                .keyId("1")
                .sign();
    }

    public static String expired(Object projects) {
        return builder(OidcProfile.ISSUER, projects)
                .issuedAt(Instant.now().minusSeconds(600))
                .expiresAt(Instant.now().minusSeconds(300))
                .jws()
                .keyId("1")
                .sign();
    }

    public static String fromIssuer(String issuer, Object projects) {
        return builder(issuer, projects).expiresIn(300).jws().keyId("1").sign();
    }

    private static JwtClaimsBuilder builder(String issuer, Object projects, String... roles) {
        JwtClaimsBuilder claims =
                Jwt.issuer(issuer).subject("worker").upn("worker").audience(OidcProfile.AUDIENCE);
        if (projects != null) {
            claims.claim("projects", projects);
        }
        if (roles.length > 0) {
            claims.groups(Set.of(roles));
        }
        return claims;
    }
}
