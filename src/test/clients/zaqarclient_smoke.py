"""Drives a running Pigeon with the official python-zaqarclient (apt-get install python3-zaqarclient).

Usage: /usr/bin/python3 src/test/clients/zaqarclient_smoke.py [URL] [API_VERSION]
Exits non-zero on the first thing that does not behave as the client expects.
"""
import sys
import uuid

from zaqarclient.queues import client

url = sys.argv[1] if len(sys.argv) > 1 else 'http://localhost:8080'
version = float(sys.argv[2]) if len(sys.argv) > 2 else 1
project = 'smoke-' + uuid.uuid4().hex
conf = {'auth_opts': {'backend': 'noauth', 'options': {'os_project_id': project}}}
zaqar = client.Client(url, version=version, conf=conf)

queue = zaqar.queue('smoke-jobs')
queue.ensure_exists()
assert queue.exists()
queue.metadata(new_meta={'owner': 'platform'})
assert queue.metadata(force_reload=True) == {'owner': 'platform'}

queue.post([{'ttl': 300, 'body': {'n': i}} for i in range(5)])
assert queue.stats['messages']['free'] == 5
assert [m.body for m in queue.messages(echo=True)] == [{'n': i} for i in range(5)]

claim = queue.claim(ttl=60, grace=60, limit=3)
claimed = list(claim)
assert [m.body for m in claimed] == [{'n': 0}, {'n': 1}, {'n': 2}]
for message in claimed:
    message.delete()
claim.update(ttl=120)
claim.delete()
assert queue.stats['messages']['total'] == 2

assert [q.name for q in zaqar.queues()] == ['smoke-jobs']
queue.delete()
assert not queue.exists()
print('python-zaqarclient v%s against %s: all checks passed' % (version, url))
