package io.pigeon.tenancy;

import java.util.Arrays;

/**
 * What the caller may do beyond its own project. With authentication off, Zaqar trusts the {@code X-Roles}
 * header for the operator ("admin") role; Pigeon does so only with {@code pigeon.auth.trust-roles-header}
 * (the header is dropped otherwise, and in OIDC mode the token decides).
 */
public final class Callers {

    public static final String ROLES_HEADER = "X-Roles";
    public static final String OPERATOR_ROLE = "admin";

    private Callers() {}

    public static boolean isOperator(String rolesHeader) {
        return rolesHeader != null
                && Arrays.stream(rolesHeader.split(",")).map(String::trim).anyMatch(OPERATOR_ROLE::equals);
    }
}
