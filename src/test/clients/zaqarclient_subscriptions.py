"""Subscriptions through the official python-zaqarclient at API v2 against a running Pigeon, with a webhook
receiver inside this script: subscribe, show, list, update, post a message and see its notification arrive,
unsubscribe.

Usage: /usr/bin/python3 src/test/clients/zaqarclient_subscriptions.py [URL]
The receiver listens on 127.0.0.1, so Pigeon's pigeon.dispatch.allowed-targets must allow it (the tests do).
Prints one line per step; exits non-zero at the first step that does not behave as the client expects.
"""
import http.server
import json
import sys
import threading
import time
import uuid

from zaqarclient.queues import client

url = sys.argv[1] if len(sys.argv) > 1 else 'http://localhost:8080'
project = 'subscriptions-' + uuid.uuid4().hex
conf = {'auth_opts': {'backend': 'noauth', 'options': {'os_project_id': project}}}
zaqar = client.Client(url, version=2, conf=conf)

received = []


class Receiver(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        length = int(self.headers.get('Content-Length', 0))
        received.append(json.loads(self.rfile.read(length)))
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args):
        pass


server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Receiver)
threading.Thread(target=server.serve_forever, daemon=True).start()
hook = 'http://127.0.0.1:%d/hook' % server.server_address[1]


def step(name, condition):
    if not condition:
        print('FAIL ' + name)
        sys.exit(1)
    print('ok   ' + name)


queue = zaqar.queue('alerts', force_create=True)
sub = zaqar.subscription('alerts', subscriber=hook, ttl=3600, options={'purpose': 'scenario'})
step('subscribe', sub.id is not None and len(sub.id) == 24)
step('show', sub.subscriber == hook and sub.ttl == 3600 and sub.options == {'purpose': 'scenario'})

listed = list(zaqar.subscriptions('alerts'))
step('list', [s.id for s in listed] == [sub.id] and listed[0].subscriber == hook)

sub.update({'ttl': 7200})
again = zaqar.subscription('alerts', id=sub.id)
step('update', again.ttl == 7200)

# Re-subscribing the same subscriber is idempotent, as in Zaqar 15: the same subscription comes back.
resubscribed = zaqar.subscription('alerts', subscriber=hook, ttl=3600)
step('re-subscribe', resubscribed.id == sub.id and len(list(zaqar.subscriptions('alerts'))) == 1)

queue.post([{'body': {'alert': 'disk full'}, 'ttl': 300}])
deadline = time.time() + 5
while not received and time.time() < deadline:
    time.sleep(0.05)
step('notification delivered', received == [{'body': {'alert': 'disk full'}, 'ttl': 300,
                                             'queue_name': 'alerts', 'Message_Type': 'Notification'}])

sub.delete()
step('unsubscribe', list(zaqar.subscriptions('alerts')) == [])
queue.delete()
print('all steps passed')
