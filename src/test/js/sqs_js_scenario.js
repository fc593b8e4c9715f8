// Drives a running Pigeon's SQS API with @aws-sdk/client-sqs v3 (the AWS JSON protocol), the way the JavaScript
// SDK routes: a call that names a QueueUrl goes to that URL's host, whatever the client's endpoint. One client is
// configured like a container with AWS_ENDPOINT_URL_SQS=http://127.0.0.1:PORT; the queue URLs it uses were made for
// http://localhost:PORT, so its queue calls reach Pigeon under another host name than its endpoint's.
//
// Usage (from the project root): node src/test/js/sqs_js_scenario.js PORT [queues|messages|all]
// Needs `npm ci` in src/test/js (.ci/run does it). Prints one line per step; exits non-zero at the first step
// that does not behave as AWS documents.
'use strict';
const crypto = require('node:crypto');
const sqs = require('@aws-sdk/client-sqs');

const port = process.argv[2] || '8080';
const mode = process.argv[3] || 'all';
const project = 'js-' + crypto.randomUUID().replaceAll('-', '');
const credentials = { accessKeyId: project, secretAccessKey: 'not-checked-in-auth-mode-none' };
const warnings = [];
const logger = { debug() {}, info() {}, warn: (m) => warnings.push(String(m)), error() {} };

// Queue URLs made for "localhost": this client's endpoint is set in code.
const byName = new sqs.SQSClient({ region: 'us-east-1', credentials, endpoint: `http://localhost:${port}` });
// The application's client: its endpoint comes from the environment, so the SDK sends queue calls to the QueueUrl.
process.env.AWS_ENDPOINT_URL_SQS = `http://127.0.0.1:${port}`;
const app = new sqs.SQSClient({ region: 'us-east-1', credentials, logger });

function step(name, condition, detail) {
    if (!condition) {
        console.log(`FAIL ${name}` + (detail === undefined ? '' : `: ${JSON.stringify(detail)}`));
        process.exit(1);
    }
    console.log(`ok   ${name}`);
}

async function errorOf(promise) {
    try {
        await promise;
        return 'none';
    } catch (e) {
        return `${e.name} ${e.$metadata && e.$metadata.httpStatusCode}`;
    }
}

async function queues() {
    const { QueueUrl: url } = await byName.send(new sqs.CreateQueueCommand({
        QueueName: 'js-jobs', Attributes: { VisibilityTimeout: '50' }, tags: { team: 'platform' } }));
    step('create queue (URL for localhost)', url.startsWith(`http://localhost:${port}/`) && url.endsWith('/js-jobs'),
        url);
    const { QueueUrl: ipUrl } = await app.send(new sqs.GetQueueUrlCommand({ QueueName: 'js-jobs' }));
    step('get queue url through 127.0.0.1', ipUrl === url.replace('//localhost:', '//127.0.0.1:'), ipUrl);
    const listed = await app.send(new sqs.ListQueuesCommand({ QueueNamePrefix: 'js-' }));
    step('list queues', JSON.stringify(listed.QueueUrls) === JSON.stringify([ipUrl]), listed);
    const got = await app.send(new sqs.GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['All'] }));
    step('get attributes through the queue URL\'s host', got.Attributes.VisibilityTimeout === '50', got.Attributes);
    step('the SDK routed to the queue URL\'s host', warnings.some((w) => w.includes('using QueueUrl host')),
        warnings);
    await app.send(new sqs.SetQueueAttributesCommand({ QueueUrl: url, Attributes: { DelaySeconds: '3' } }));
    const one = await app.send(new sqs.GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['DelaySeconds'] }));
    step('set attributes', JSON.stringify(one.Attributes) === '{"DelaySeconds":"3"}', one.Attributes);
    const tags = await app.send(new sqs.ListQueueTagsCommand({ QueueUrl: url }));
    step('tags', tags.Tags && tags.Tags.team === 'platform', tags);
    step('a queue that does not exist', await errorOf(app.send(new sqs.GetQueueUrlCommand({ QueueName: 'js-missing' })))
        === 'QueueDoesNotExist 400');
    await app.send(new sqs.DeleteQueueCommand({ QueueUrl: url }));
    step('delete queue', await errorOf(app.send(new sqs.GetQueueUrlCommand({ QueueName: 'js-jobs' })))
        === 'QueueDoesNotExist 400');
}

async function messages() {
    const { QueueUrl: url } = await byName.send(new sqs.CreateQueueCommand({ QueueName: 'js-messages' }));
    const body = 'hello from JavaScript \u00e9\u4e2d';
    const MessageAttributes = {
        kind: { DataType: 'String', StringValue: 'greeting' },
        size: { DataType: 'Number', StringValue: '7' },
        raw: { DataType: 'Binary', BinaryValue: Uint8Array.from([0, 1, 254, 255]) },
    };
    // The SDK checks MD5OfMessageBody itself and throws when it differs.
    const sent = await app.send(new sqs.SendMessageCommand({ QueueUrl: url, MessageBody: body, MessageAttributes }));
    step('send', !!sent.MessageId && !!sent.MD5OfMessageAttributes, sent);
    const batch = await app.send(new sqs.SendMessageBatchCommand({ QueueUrl: url, Entries: [
        { Id: 'one', MessageBody: 'batch one' }, { Id: 'two', MessageBody: 'batch two' }] }));
    step('send batch', (batch.Successful || []).length === 2 && !batch.Failed?.length, batch);
    const received = new Map();
    for (let i = 0; i < 20 && received.size < 3; i++) {
        const answer = await app.send(new sqs.ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10,
            WaitTimeSeconds: 1, MessageAttributeNames: ['All'], MessageSystemAttributeNames: ['All'] }));
        for (const m of answer.Messages || []) received.set(m.Body, m);
    }
    step('receive all three', [...received.keys()].sort().join('|') === [body, 'batch one', 'batch two'].sort()
        .join('|'), [...received.keys()]);
    const first = received.get(body);
    step('receive: attributes', first.MessageAttributes.kind.StringValue === 'greeting'
        && first.MessageAttributes.size.StringValue === '7'
        && Buffer.from(first.MessageAttributes.raw.BinaryValue).equals(Buffer.from([0, 1, 254, 255])),
        first.MessageAttributes);
    step('receive: receive count', first.Attributes.ApproximateReceiveCount === '1', first.Attributes);
    const deleted = await app.send(new sqs.DeleteMessageBatchCommand({ QueueUrl: url, Entries: [...received.values()]
        .map((m, i) => ({ Id: `m${i}`, ReceiptHandle: m.ReceiptHandle })) }));
    step('delete batch', (deleted.Successful || []).length === 3, deleted);
    step('a forged receipt handle', await errorOf(app.send(new sqs.DeleteMessageCommand({ QueueUrl: url,
        ReceiptHandle: 'not-a-receipt-handle' }))) === 'ReceiptHandleIsInvalid 400');
    await app.send(new sqs.DeleteQueueCommand({ QueueUrl: url }));
}

(async () => {
    if (mode === 'queues' || mode === 'all') await queues();
    if (mode === 'messages' || mode === 'all') await messages();
    console.log(`@aws-sdk/client-sqs ${require('@aws-sdk/client-sqs/package.json').version} (JSON protocol) against `
        + `port ${port}: all steps passed`);
})().catch((e) => {
    console.log(`FAIL ${e.name}: ${e.message}`);
    process.exit(1);
});
