package io.pigeon.api.sqs;

/** The two wires SQS speaks: AWS JSON 1.0 (every current SDK) and the query protocol (SDKs before late 2023). */
enum SqsProtocol {
    JSON,
    QUERY
}
