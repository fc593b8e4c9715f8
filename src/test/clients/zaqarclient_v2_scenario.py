"""The issue's compatibility scenario, driven by the official python-zaqarclient at API v2 against a
running Pigeon: create queue, metadata, post, list with paging, claim, renew, delete with claim id, release,
stats, pop, get and delete many by ids, a pre-signed URL used by a second client, delete queue.

Usage: /usr/bin/python3 src/test/clients/zaqarclient_v2_scenario.py [URL] [API_VERSION (2, or 1.1)]
With 1.1 the v2-only steps (metadata patch, signed URLs) are left out; everything else is the same scenario.
Prints one line per step; exits non-zero at the first step that does not behave as the client expects.
"""
import sys
import uuid

from zaqarclient.queues import client

url = sys.argv[1] if len(sys.argv) > 1 else 'http://localhost:8080'
version = float(sys.argv[2]) if len(sys.argv) > 2 else 2
v2 = version >= 2
project = 'scenario-' + uuid.uuid4().hex
conf = {'auth_opts': {'backend': 'noauth', 'options': {'os_project_id': project}}}
zaqar = client.Client(url, version=version, conf=conf)


def queue_names():
    listed = zaqar.queues()  # v2: (queues, count); v1.1: the queues
    return [q.name for q in (listed[0] if isinstance(listed, tuple) else listed)]


def step(name, condition):
    if not condition:
        print('FAIL ' + name)
        sys.exit(1)
    print('ok   ' + name)


queue = zaqar.queue('scenario-jobs', force_create=True)  # PUT; v2 queues are otherwise lazy
step('create queue', queue_names() == ['scenario-jobs'])

default_ttl = 3600
if v2:
    metadata = queue.metadata(new_meta={'owner': 'platform', '_default_message_ttl': 600})
    step('metadata patch', metadata['owner'] == 'platform' and metadata['_default_message_ttl'] == 600)
    step('metadata read', queue.metadata(force_reload=True)['owner'] == 'platform')
    default_ttl = 600

queue.post([{'body': {'n': i}} for i in range(12)])
step('post (default ttl)', queue.stats['messages']['free'] == 12)

listed = list(queue.messages(echo=True, limit=5).stream())  # follows the next links
step('list with paging', [m.body['n'] for m in listed] == list(range(12)))
step('list ttl from the default', all(m.ttl == default_ttl for m in listed))

claim = queue.claim(ttl=60, grace=60, limit=3)
claimed = list(claim)
step('claim', [m.body['n'] for m in claimed] == [0, 1, 2])
# Message.claim_count: v2 documents carry it, the current claim counted; v1.1's do not unless asked (the default, 0).
step('claim count', [m.claim_count for m in claimed] == [1 if v2 else 0] * 3)
step('stats while claimed', queue.stats['messages']['claimed'] == 3)

claim.update(ttl=120, grace=60)
step('renew claim', queue.claim(id=claim.id).ttl == 120)

claimed[0].delete()
step('delete with claim id', queue.stats['messages']['total'] == 11)

claim.delete()
stats = queue.stats['messages']
step('release claim', stats['claimed'] == 0 and stats['free'] == 11)

popped = list(queue.pop(count=2))
step('pop', sorted(m.body['n'] for m in popped) == [1, 2])
step('pop claim count', [m.claim_count for m in popped] == [2 if v2 else 0] * 2)
step('stats after pop', queue.stats['messages']['total'] == 9)

# Get-many by ids: the client sends ids=a&ids=b&ids=c (the repeated form).
posted = queue.post([{'body': {'n': 100 + i}} for i in range(3)])
ids = [href.split('/')[-1] for href in posted['resources']]
step('get many by ids', sorted(m.body['n'] for m in queue.messages(*ids)) == [100, 101, 102])
queue.delete_messages(*ids[:2])
step('delete many by ids', [m.body['n'] for m in queue.messages(*ids)] == [102])

# A pre-signed URL (v2): another client with only the signature (the signed-url auth backend) reads the messages.
if not v2:
    queue.delete()
    step('delete queue', queue_names() == [])
    print('python-zaqarclient v%s scenario against %s: all steps passed' % (version, url))
    sys.exit(0)
signed = queue.signed_url(['messages'], methods=['GET', 'POST'], ttl_seconds=600)
step('signed url', signed['paths'] == ['/v2/queues/scenario-jobs/messages']
     and signed['methods'] == ['GET', 'POST'] and signed['project'] == project and len(signed['signature']) == 64)
signed_conf = {'auth_opts': {'backend': 'signed-url',
                             'options': {'signature': signed['signature'], 'expires': signed['expires'],
                                         'methods': signed['methods'], 'paths': signed['paths'],
                                         'os_project_id': project}}}
guest = client.Client(url, version=2, conf=signed_conf)
guest_queue = guest.queue('scenario-jobs', auto_create=False)
try:
    guest_queue.post([{'body': {'n': 'from-guest'}}])
    listed = [m.body['n'] for m in guest_queue.messages(echo=True, limit=20)]
except Exception as failure:
    print('signed client failed: %r' % failure)
    listed = []
step('signed url: post and list', 'from-guest' in listed)
try:
    guest_queue.stats
    step('signed url: nothing beyond the grant', False)
except Exception:
    step('signed url: nothing beyond the grant', True)

queue.delete()
step('delete queue', queue_names() == [])
print('python-zaqarclient v2 scenario against %s: all steps passed' % url)
