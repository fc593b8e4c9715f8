#!/usr/bin/env bash
# Drives a running Pigeon's SQS API with Debian's awscli (2.9: the query protocol), as an operator types it:
# `aws sqs ... --endpoint-url URL` with credentials from the environment and no configuration file.
#
# Usage: bash src/test/clients/sqs_awscli_scenario.sh URL [queues|messages|all]
# In auth mode none the access key id names the project; each run is its own random project.
# Prints one line per step; exits non-zero at the first step that does not behave as AWS documents.
set -euo pipefail
url=${1:-http://localhost:8080}
mode=${2:-all}
AWS_ACCESS_KEY_ID="awscli-$(/usr/bin/python3 -c 'import uuid; print(uuid.uuid4().hex)')"
export AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY=not-checked-in-auth-mode-none AWS_DEFAULT_REGION=us-east-1
export AWS_PAGER='' AWS_CONFIG_FILE=/dev/null AWS_SHARED_CREDENTIALS_FILE=/dev/null
sqs() { /usr/bin/aws sqs --endpoint-url "$url" "$@"; }
trap 'echo "FAIL at line $LINENO: $BASH_COMMAND"' ERR

step() { # name, expected, actual
    if [ "$2" != "$3" ]; then
        echo "FAIL $1: expected [$2], got [$3]"
        exit 1
    fi
    echo "ok   $1"
}

# The error code the CLI prints for a refused call ("An error occurred (CODE) when calling ..."), or "none".
error_code() {
    local out
    if out=$("$@" 2>&1); then
        echo none
    else
        sed -n 's/.*An error occurred (\([^)]*\)).*/\1/p' <<<"$out" | head -1
    fi
}

queues() {
    local queue_url
    queue_url=$(sqs create-queue --queue-name cli-jobs --attributes VisibilityTimeout=40,DelaySeconds=0 \
        --query QueueUrl --output text)
    step 'create queue' cli-jobs "${queue_url##*/}"
    step 'get queue url' "$queue_url" "$(sqs get-queue-url --queue-name cli-jobs --query QueueUrl --output text)"
    sqs create-queue --queue-name cli-other >/dev/null
    step 'list queues by prefix' "$queue_url" "$(sqs list-queues --queue-name-prefix cli-j --query 'QueueUrls[0]' \
        --output text)"
    step 'get attributes' 40 "$(sqs get-queue-attributes --queue-url "$queue_url" --attribute-names All \
        --query Attributes.VisibilityTimeout --output text)"
    sqs set-queue-attributes --queue-url "$queue_url" --attributes VisibilityTimeout=75
    step 'set attributes' 75 "$(sqs get-queue-attributes --queue-url "$queue_url" \
        --attribute-names VisibilityTimeout --query Attributes.VisibilityTimeout --output text)"
    sqs tag-queue --queue-url "$queue_url" --tags team=platform
    step 'tags' platform "$(sqs list-queue-tags --queue-url "$queue_url" --query Tags.team --output text)"
    step 'a queue that does not exist' AWS.SimpleQueueService.NonExistentQueue \
        "$(error_code sqs get-queue-url --queue-name cli-missing)"
    sqs delete-queue --queue-url "$queue_url"
    step 'delete queue' AWS.SimpleQueueService.NonExistentQueue "$(error_code sqs get-queue-url --queue-name cli-jobs)"
}

messages() {
    local queue_url body message handle
    queue_url=$(sqs create-queue --queue-name cli-messages --query QueueUrl --output text)
    body='hello from the aws cli'
    step 'send: MD5 of the body' "$(printf %s "$body" | md5sum | cut -d' ' -f1)" \
        "$(sqs send-message --queue-url "$queue_url" --message-body "$body" \
            --message-attributes '{"kind":{"DataType":"String","StringValue":"greeting"}}' \
            --query MD5OfMessageBody --output text)"
    message=$(sqs receive-message --queue-url "$queue_url" --wait-time-seconds 5 --message-attribute-names All \
        --query 'Messages[0].[Body,MessageAttributes.kind.StringValue,ReceiptHandle]' --output text)
    IFS=$'\t' read -r got_body got_kind handle <<<"$message"
    step 'receive: body' "$body" "$got_body"
    step 'receive: attribute' greeting "$got_kind"
    sqs delete-message --queue-url "$queue_url" --receipt-handle "$handle"
    step 'delete: queue empty' 0 "$(sqs get-queue-attributes --queue-url "$queue_url" \
        --attribute-names ApproximateNumberOfMessagesNotVisible \
        --query Attributes.ApproximateNumberOfMessagesNotVisible --output text)"
    step 'a forged receipt handle' ReceiptHandleIsInvalid \
        "$(error_code sqs delete-message --queue-url "$queue_url" --receipt-handle not-a-receipt-handle)"
    sqs delete-queue --queue-url "$queue_url"
}

case "$mode" in
    queues) queues ;;
    messages) messages ;;
    *) queues; messages ;;
esac
echo "$(/usr/bin/aws --version 2>&1 | cut -d' ' -f1) (query protocol) against $url: all steps passed"
