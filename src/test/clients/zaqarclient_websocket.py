"""Drives a running Pigeon through python-zaqarclient's websocket transport (python3-zaqarclient and
python3-websocket from Debian).

Usage: /usr/bin/python3 src/test/clients/zaqarclient_websocket.py URL
URL is Pigeon's HTTP base (http://host:port); the transport connects to ws://host:port/. The client's
higher-level queue API sends its parameters in the query string, which the websocket transport drops (its own
docstring says so), so the scenario uses the transport's requests as that docstring shows. Exits non-zero on the
first thing that does not behave as the client expects.
"""
import json
import sys
import urllib.request
import uuid

from zaqarclient import transport
from zaqarclient.transport import request

http_url = sys.argv[1] if len(sys.argv) > 1 else 'http://localhost:8080'
ws_url = 'ws' + http_url[len('http'):] + '/'
project = 'ws-' + uuid.uuid4().hex
# The transport reads a token even without authentication; Pigeon in auth mode none ignores it.
conf = {'auth_opts': {'backend': 'noauth', 'options': {'os_project_id': project, 'os_auth_token': 'none'}}}


def call(socket, action, status, **body):
    req = request.Request(ws_url, action, content=json.dumps(body) if body else None)
    resp = socket.send(req)
    assert resp.status_code == status, (action, resp.status_code, resp.content)
    return json.loads(resp.content)


def step(name):
    print('step:', name)


requests = transport.get_transport_for(ws_url, version=2, options=conf)
pushes = transport.get_transport_for(ws_url, version=2, options=conf)

step('queue create')
assert call(requests, 'queue_create', 201, queue_name='jobs') == 'Queue jobs created.'

step('post')
posted = call(requests, 'message_post', 201, queue_name='jobs',
              messages=[{'ttl': 300, 'body': {'n': n}} for n in range(3)])
assert len(posted['message_ids']) == 3

step('list')
listed = call(requests, 'message_list', 200, queue_name='jobs', echo=True)
assert [m['body'] for m in listed['messages']] == [{'n': 0}, {'n': 1}, {'n': 2}], listed

step('claim')
claim = call(requests, 'claim_create', 201, queue_name='jobs', limit=2, ttl=60, grace=60)
assert [m['body'] for m in claim['messages']] == [{'n': 0}, {'n': 1}], claim

step('delete with claim id')
for message in claim['messages']:
    call(requests, 'message_delete', 204, queue_name='jobs', message_id=message['id'],
         claim_id=claim['claim_id'])

step('stats')
stats = call(requests, 'queue_get_stats', 200, queue_name='jobs')['messages']
assert (stats['total'], stats['claimed'], stats['free']) == (1, 0, 1), stats

step('socket subscription')
subscribed = call(pushes, 'subscription_create', 201, queue_name='jobs', ttl=600)
assert subscribed['subscription_id']
post = urllib.request.Request(
    '%s/v2/queues/jobs/messages' % http_url, method='POST',
    data=json.dumps({'messages': [{'ttl': 120, 'body': {'event': 'over-http'}}]}).encode(),
    headers={'Content-Type': 'application/json', 'Client-ID': str(uuid.uuid4()), 'X-Project-ID': project})
assert urllib.request.urlopen(post, timeout=10).status == 201
pushes._ws.settimeout(10)
notification = pushes.recv()
assert notification == {'ttl': 120, 'body': {'event': 'over-http'}, 'Message_Type': 'Notification',
                        'queue_name': 'jobs'}, notification

step('queue delete')
assert call(requests, 'queue_delete', 204, queue_name='jobs') == 'Queue jobs removed.'
requests.cleanup()
pushes.cleanup()
print('python-zaqarclient websocket transport against %s: all steps passed' % ws_url)
