package io.pigeon.api;

import io.pigeon.tenancy.TokenTenancy;
import io.quarkus.vertx.http.runtime.filters.Filters;
import io.vertx.core.http.HttpHeaders;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

/**
 * Keystone-style clients (openstacksdk, gophercloud) send their token as {@code X-Auth-Token}, not as
 * {@code Authorization: Bearer}. In OIDC mode such a token is offered to the OIDC check as the bearer token it
 * is, before anything reads the request; a request that sends both is judged by its {@code Authorization}.
 */
@ApplicationScoped
public class AuthTokenHeader {

    static final String HEADER = "X-Auth-Token";
    /** Before the HTTP security layer, which reads the token. */
    private static final int PRIORITY = 1000;

    void register(@Observes Filters filters, TokenTenancy tenancy) {
        if (!tenancy.tokensRequired()) {
            return;
        }
        filters.register(
                context -> {
                    String token = context.request().getHeader(HEADER);
                    if (token != null
                            && !token.isBlank()
                            && context.request().getHeader(HttpHeaders.AUTHORIZATION) == null) {
                        context.request().headers().set(HttpHeaders.AUTHORIZATION, "Bearer " + token.trim());
                    }
                    context.next();
                },
                PRIORITY);
    }
}
