package io.pigeon.api.sqs;

/**
 * One SQS request as read from either wire: its protocol, action and input, the queue its path names (the query
 * protocol may post to a queue URL; null when the path is {@code /}), and the request id its answer carries. A
 * pre-signed request's credential is read from the raw query string by the signature check, not from here.
 */
record SqsRequest(SqsProtocol protocol, String action, SqsParameters parameters, String queuePath, String requestId) {}
