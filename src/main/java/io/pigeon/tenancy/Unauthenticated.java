package io.pigeon.tenancy;

/** No valid bearer token: answered 401 with {@code WWW-Authenticate: Bearer} and the error document. */
public class Unauthenticated extends RuntimeException {

    public Unauthenticated(String description) {
        super(description, null, false, false);
    }
}
