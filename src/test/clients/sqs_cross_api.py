"""One queue through both APIs of a running Pigeon, with the clients people use for each: Debian's python3-boto3
(SQS, query protocol) and python3-zaqarclient (Zaqar v2). Both act as the same project: in auth mode none the SQS
access key id and Zaqar's X-Project-Id name it.

Usage:
  /usr/bin/python3 src/test/clients/sqs_cross_api.py URL
      a message sent with boto3 is claimed and deleted with python-zaqarclient, and ones posted with
      python-zaqarclient are received with boto3 (a JSON string body as that string, other JSON as its text)
  /usr/bin/python3 src/test/clients/sqs_cross_api.py URL post PROJECT QUEUE BODY_JSON
      only posts BODY_JSON with python-zaqarclient (a test then receives it with another SQS client)
Prints one line per step; exits non-zero at the first step that does not behave as expected.
"""
import json
import sys
import uuid

import boto3
from zaqarclient.queues import client

url = sys.argv[1] if len(sys.argv) > 1 else 'http://localhost:8080'


def zaqar_queue(project, name):
    conf = {'auth_opts': {'backend': 'noauth', 'options': {'os_project_id': project}}}
    return client.Client(url, version=2, conf=conf).queue(name)


def step(name, condition, detail=''):
    if not condition:
        print('FAIL ' + name + (': ' + repr(detail) if detail != '' else ''))
        sys.exit(1)
    print('ok   ' + name)


if len(sys.argv) > 2 and sys.argv[2] == 'post':
    zaqar_queue(sys.argv[3], sys.argv[4]).post([{'ttl': 300, 'body': json.loads(sys.argv[5])}])
    print('posted with python-zaqarclient: all steps passed')
    sys.exit(0)

project = 'cross-' + uuid.uuid4().hex
sqs = boto3.client('sqs', endpoint_url=url, region_name='us-east-1',
                   aws_access_key_id=project, aws_secret_access_key='not-checked-in-auth-mode-none')
queue_url = sqs.create_queue(QueueName='cross-jobs')['QueueUrl']
zaqar = zaqar_queue(project, 'cross-jobs')

sqs.send_message(QueueUrl=queue_url, MessageBody='hello from boto3')
claim = zaqar.claim(ttl=60, grace=60, limit=10)
claimed = list(claim)
step('zaqar claims the SQS message', [m.body for m in claimed] == ['hello from boto3'], [m.body for m in claimed])
claimed[0].delete()
step('zaqar deletes it', zaqar.stats['messages']['total'] == 0, zaqar.stats)
step('SQS sees it gone', 'Messages' not in sqs.receive_message(QueueUrl=queue_url, WaitTimeSeconds=0))

zaqar.post([{'ttl': 300, 'body': 'plain text from zaqar'}, {'ttl': 300, 'body': {'order': 7, 'items': ['a']}}])
bodies = []
for _ in range(20):
    answer = sqs.receive_message(QueueUrl=queue_url, MaxNumberOfMessages=10, WaitTimeSeconds=1)
    for m in answer.get('Messages', []):
        bodies.append(m['Body'])
        sqs.delete_message(QueueUrl=queue_url, ReceiptHandle=m['ReceiptHandle'])
    if len(bodies) == 2:
        break
text = [b for b in bodies if b == 'plain text from zaqar']
other = [b for b in bodies if b != 'plain text from zaqar']
step('boto3 receives a JSON string body as that string', len(text) == 1, bodies)
step('and other JSON as its compact text', len(other) == 1 and ' ' not in other[0]
     and json.loads(other[0]) == {'order': 7, 'items': ['a']}, bodies)
step('and deletes it', zaqar.stats['messages']['total'] == 0, zaqar.stats)
zaqar.delete()
print('boto3 and python-zaqarclient on one queue against %s: all steps passed' % url)
