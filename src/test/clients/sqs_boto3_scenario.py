"""Drives a running Pigeon's SQS API with Debian's python3-boto3 (1.26: the query protocol, form requests and XML
answers), configured as an application would be: endpoint_url and static credentials, nothing else.

Usage: /usr/bin/python3 src/test/clients/sqs_boto3_scenario.py URL [queues|messages|fifo|all]
In auth mode none the access key id names the project; each run is its own random project.
Prints one line per step; exits non-zero at the first step that does not behave as AWS documents.
"""
import hashlib
import struct
import sys
import time
import uuid

import boto3
from botocore.exceptions import ClientError

url = sys.argv[1] if len(sys.argv) > 1 else 'http://localhost:8080'
mode = sys.argv[2] if len(sys.argv) > 2 else 'all'
project = 'boto3-' + uuid.uuid4().hex
sqs = boto3.client('sqs', endpoint_url=url, region_name='us-east-1',
                   aws_access_key_id=project, aws_secret_access_key='not-checked-in-auth-mode-none')


def step(name, condition, detail=''):
    if not condition:
        print('FAIL ' + name + (': ' + repr(detail) if detail != '' else ''))
        sys.exit(1)
    print('ok   ' + name)


def error_code(call, *args, **kwargs):
    try:
        call(*args, **kwargs)
    except ClientError as e:
        return e.response['Error']['Code'], e.response['ResponseMetadata']['HTTPStatusCode']
    return None, 200


def eventually(condition, seconds=10):
    """Whether condition() holds within the given time (AWS allows purges and deletions to take a while)."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def md5_of_attributes(attributes):
    """MD5OfMessageAttributes as AWS documents it: names sorted, each name, type and value length-prefixed."""
    digest = hashlib.md5()
    for name in sorted(attributes):
        value = attributes[name]
        for part in (name, value['DataType']):
            encoded = part.encode('utf-8')
            digest.update(struct.pack('>I', len(encoded)) + encoded)
        if 'BinaryValue' in value:
            digest.update(b'\x02' + struct.pack('>I', len(value['BinaryValue'])) + value['BinaryValue'])
        else:
            encoded = value['StringValue'].encode('utf-8')
            digest.update(b'\x01' + struct.pack('>I', len(encoded)) + encoded)
    return digest.hexdigest()


def queues():
    created = sqs.create_queue(QueueName='boto3-jobs',
                               Attributes={'VisibilityTimeout': '45', 'DelaySeconds': '0'},
                               tags={'team': 'platform'})
    queue_url = created['QueueUrl']
    step('create queue', queue_url.endswith('/boto3-jobs'), queue_url)
    step('create again with the same attributes',
         sqs.create_queue(QueueName='boto3-jobs', Attributes={'VisibilityTimeout': '45'})['QueueUrl'] == queue_url)
    step('get queue url', sqs.get_queue_url(QueueName='boto3-jobs')['QueueUrl'] == queue_url)
    for i in range(3):
        sqs.create_queue(QueueName='boto3-page-%d' % i)
    listed = sqs.list_queues(QueueNamePrefix='boto3-page-', MaxResults=2)
    urls = listed['QueueUrls']
    step('list queues: a first page of 2', len(urls) == 2 and 'NextToken' in listed, listed)
    rest = sqs.list_queues(QueueNamePrefix='boto3-page-', MaxResults=2, NextToken=listed['NextToken'])
    urls += rest['QueueUrls']
    step('list queues: the rest', sorted(u.rsplit('/', 1)[1] for u in urls) == ['boto3-page-%d' % i for i in range(3)]
         and 'NextToken' not in rest, rest)
    attributes = sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=['All'])['Attributes']
    step('get attributes (All)', attributes.get('VisibilityTimeout') == '45'
         and attributes.get('QueueArn', '').endswith(':boto3-jobs')
         and attributes.get('ApproximateNumberOfMessages') == '0', attributes)
    sqs.set_queue_attributes(QueueUrl=queue_url, Attributes={'VisibilityTimeout': '90', 'DelaySeconds': '2'})
    one = sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=['VisibilityTimeout'])['Attributes']
    step('set attributes, read one back', one == {'VisibilityTimeout': '90'}, one)
    step('an unknown attribute name',
         error_code(sqs.get_queue_attributes, QueueUrl=queue_url, AttributeNames=['NoSuchAttribute'])
         == ('InvalidAttributeName', 400))
    sqs.tag_queue(QueueUrl=queue_url, Tags={'env': 'test'})
    step('tags', sqs.list_queue_tags(QueueUrl=queue_url).get('Tags') == {'team': 'platform', 'env': 'test'})
    sqs.untag_queue(QueueUrl=queue_url, TagKeys=['team'])
    step('untag', sqs.list_queue_tags(QueueUrl=queue_url).get('Tags') == {'env': 'test'})
    step('a queue that does not exist',
         error_code(sqs.get_queue_url, QueueName='boto3-missing') == ('AWS.SimpleQueueService.NonExistentQueue', 400))
    sqs.delete_queue(QueueUrl=queue_url)
    step('delete queue', eventually(lambda: error_code(sqs.get_queue_url, QueueName='boto3-jobs')[0]
                                    == 'AWS.SimpleQueueService.NonExistentQueue'))


def messages():
    queue_url = sqs.create_queue(QueueName='boto3-messages')['QueueUrl']
    attributes = {
        'kind': {'DataType': 'String', 'StringValue': 'invoice'},
        'amount': {'DataType': 'Number', 'StringValue': '42.50'},
        'thumbnail': {'DataType': 'Binary', 'BinaryValue': bytes([0, 1, 2, 250, 255])},
        'schema': {'DataType': 'String.json', 'StringValue': '{"v":1}'},
    }
    body = 'hello from boto3 \u00e9\u4e2d'
    sent = sqs.send_message(QueueUrl=queue_url, MessageBody=body, MessageAttributes=attributes)
    step('send: MD5 of the body', sent['MD5OfMessageBody'] == hashlib.md5(body.encode('utf-8')).hexdigest(), sent)
    step('send: MD5 of the attributes', sent['MD5OfMessageAttributes'] == md5_of_attributes(attributes), sent)
    batch = sqs.send_message_batch(QueueUrl=queue_url, Entries=[
        {'Id': 'a', 'MessageBody': 'batch a'},
        {'Id': 'b', 'MessageBody': 'batch b'},
        {'Id': 'late', 'MessageBody': 'too late', 'DelaySeconds': 901},
    ])
    step('send batch: the good entries', sorted(e['Id'] for e in batch.get('Successful', [])) == ['a', 'b'], batch)
    step('send batch: the bad entry', [(e['Id'], e['SenderFault']) for e in batch.get('Failed', [])]
         == [('late', True)], batch)
    received = {}
    for _ in range(20):
        answer = sqs.receive_message(QueueUrl=queue_url, MaxNumberOfMessages=10, WaitTimeSeconds=1,
                                     VisibilityTimeout=60, MessageAttributeNames=['All'], AttributeNames=['All'])
        for m in answer.get('Messages', []):
            received[m['Body']] = m
        if len(received) == 3:
            break
    step('receive all three', sorted(received) == sorted([body, 'batch a', 'batch b']), sorted(received))
    first = received[body]
    step('receive: body MD5', first['MD5OfBody'] == hashlib.md5(body.encode('utf-8')).hexdigest())
    step('receive: attributes', first.get('MessageAttributes') == attributes, first.get('MessageAttributes'))
    step('receive: attributes MD5', first.get('MD5OfMessageAttributes') == md5_of_attributes(attributes))
    step('receive: receive count', first['Attributes'].get('ApproximateReceiveCount') == '1', first['Attributes'])
    step('receive: nothing more while invisible',
         'Messages' not in sqs.receive_message(QueueUrl=queue_url, WaitTimeSeconds=0))
    sqs.change_message_visibility(QueueUrl=queue_url, ReceiptHandle=first['ReceiptHandle'], VisibilityTimeout=0)
    again = None
    for _ in range(20):
        answer = sqs.receive_message(QueueUrl=queue_url, WaitTimeSeconds=1, AttributeNames=['All'])
        if answer.get('Messages'):
            again = answer['Messages'][0]
            break
    step('visible again after a visibility of 0', again is not None and again['Body'] == body
         and again['Attributes'].get('ApproximateReceiveCount') == '2', again)
    deleted = sqs.delete_message_batch(QueueUrl=queue_url, Entries=[
        {'Id': 'first', 'ReceiptHandle': again['ReceiptHandle']},
        {'Id': 'a', 'ReceiptHandle': received['batch a']['ReceiptHandle']},
        {'Id': 'forged', 'ReceiptHandle': 'not-a-receipt-handle'},
    ])
    step('delete batch: the good entries', sorted(e['Id'] for e in deleted.get('Successful', [])) == ['a', 'first'],
         deleted)
    step('delete batch: the bad entry', [(e['Id'], e['Code']) for e in deleted.get('Failed', [])]
         == [('forged', 'ReceiptHandleIsInvalid')], deleted)
    sqs.delete_message(QueueUrl=queue_url, ReceiptHandle=received['batch b']['ReceiptHandle'])
    counts = sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=[
        'ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'])['Attributes']
    step('queue empty', counts == {'ApproximateNumberOfMessages': '0', 'ApproximateNumberOfMessagesNotVisible': '0'},
         counts)
    step('duplicate batch ids', error_code(sqs.send_message_batch, QueueUrl=queue_url, Entries=[
        {'Id': 'x', 'MessageBody': '1'}, {'Id': 'x', 'MessageBody': '2'}])
         == ('AWS.SimpleQueueService.BatchEntryIdsNotDistinct', 400))
    step('eleven batch entries', error_code(sqs.send_message_batch, QueueUrl=queue_url, Entries=[
        {'Id': 'e%d' % i, 'MessageBody': 'x'} for i in range(11)])
         == ('AWS.SimpleQueueService.TooManyEntriesInBatchRequest', 400))
    sqs.send_message(QueueUrl=queue_url, MessageBody='purged')
    sqs.purge_queue(QueueUrl=queue_url)
    step('purge', eventually(lambda: sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=[
        'ApproximateNumberOfMessages'])['Attributes'] == {'ApproximateNumberOfMessages': '0'}))
    sqs.delete_queue(QueueUrl=queue_url)


def fifo():
    """A FIFO queue: .fifo and FifoQueue, MessageGroupId, deduplication (given and by content), SequenceNumber, the
    order within a group, and AWS's refusals."""
    step('a .fifo name without FifoQueue', error_code(sqs.create_queue, QueueName='boto.fifo')[0]
         == 'InvalidParameterValue')
    queue_url = sqs.create_queue(QueueName='boto.fifo', Attributes={'FifoQueue': 'true'})['QueueUrl']
    shown = sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=['All'])['Attributes']
    step('FIFO attributes shown', shown.get('FifoQueue') == 'true' and shown.get('ContentBasedDeduplication') == 'false'
         and shown.get('DeduplicationScope') == 'queue' and shown.get('FifoThroughputLimit') == 'perQueue', shown)
    first = sqs.send_message(QueueUrl=queue_url, MessageBody='charge', MessageGroupId='order-1',
                             MessageDeduplicationId='charge-1')
    again = sqs.send_message(QueueUrl=queue_url, MessageBody='charge again', MessageGroupId='order-1',
                             MessageDeduplicationId='charge-1')
    step('a repeated MessageDeduplicationId answers the first MessageId',
         first['MessageId'] == again['MessageId'] and first['SequenceNumber'] == again['SequenceNumber'], again)
    for i in range(1, 6):
        sqs.send_message(QueueUrl=queue_url, MessageBody='step %d' % i, MessageGroupId='order-1',
                         MessageDeduplicationId='step-%d' % i)
    step('a missing MessageGroupId', error_code(sqs.send_message, QueueUrl=queue_url, MessageBody='x',
                                                MessageDeduplicationId='y') == ('MissingParameter', 400))
    step('a missing MessageDeduplicationId', error_code(sqs.send_message, QueueUrl=queue_url, MessageBody='x',
                                                        MessageGroupId='g') == ('InvalidParameterValue', 400))
    step('DelaySeconds per message', error_code(sqs.send_message, QueueUrl=queue_url, MessageBody='x',
                                                MessageGroupId='g', MessageDeduplicationId='z', DelaySeconds=3)
         == ('InvalidParameterValue', 400))
    bodies = []
    sequence = []
    for _ in range(30):
        if len(bodies) >= 6:
            break
        answer = sqs.receive_message(QueueUrl=queue_url, MaxNumberOfMessages=10, AttributeNames=['All'])
        for message in answer.get('Messages', []):
            bodies.append(message['Body'])
            sequence.append(int(message['Attributes']['SequenceNumber']))
            step('its group and deduplication id', message['Attributes']['MessageGroupId'] == 'order-1'
                 and 'MessageDeduplicationId' in message['Attributes'], message['Attributes'])
            sqs.delete_message(QueueUrl=queue_url, ReceiptHandle=message['ReceiptHandle'])
    step('one message stored for the repeat, the group in the order sent',
         bodies == ['charge'] + ['step %d' % i for i in range(1, 6)], bodies)
    step('SequenceNumber increases within the group', sequence == sorted(sequence) and len(set(sequence)) == 6,
         sequence)
    sqs.set_queue_attributes(QueueUrl=queue_url, Attributes={'ContentBasedDeduplication': 'true'})
    one = sqs.send_message(QueueUrl=queue_url, MessageBody='same body', MessageGroupId='g')
    two = sqs.send_message(QueueUrl=queue_url, MessageBody='same body', MessageGroupId='g')
    step('content-based deduplication', one['MessageId'] == two['MessageId'])
    received = sqs.receive_message(QueueUrl=queue_url, AttributeNames=['MessageDeduplicationId'])['Messages'][0]
    step('the body\'s SHA-256 is its MessageDeduplicationId', received['Attributes']['MessageDeduplicationId']
         == hashlib.sha256(b'same body').hexdigest(), received['Attributes'])
    sqs.delete_queue(QueueUrl=queue_url)


if mode in ('queues', 'all'):
    queues()
if mode in ('messages', 'all'):
    messages()
if mode in ('fifo', 'all'):
    fifo()
print('boto3 %s (query protocol) against %s: all steps passed' % (boto3.__version__, url))
