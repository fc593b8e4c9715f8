package io.pigeon.api.sqs;

import java.util.Map;

/**
 * One SQS request as read from either wire: its protocol, action and input, the queue its path names (the query
 * protocol may post to a queue URL; null when the path is {@code /}), the query string's parameters (where a
 * pre-signed request carries its credential), and the request id its answer carries.
 */
record SqsRequest(
        SqsProtocol protocol,
        String action,
        SqsParameters parameters,
        String queuePath,
        Map<String, String> queryString,
        String requestId) {}
