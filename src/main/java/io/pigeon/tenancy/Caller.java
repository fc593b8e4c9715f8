package io.pigeon.tenancy;

/**
 * Who a request acts as, decided once per request by the tenancy rules: the project it names or its token
 * grants (null when neither names one, which v1 and v3 answer with the default project and v2 refuses), and
 * whether it holds the operator role.
 */
public record Caller(String project, boolean operator) {
}
