"""Zaqar's pools and flavors, driven by the official python-zaqarclient at API v2 against a running Pigeon:
register two pools, read, list and patch them, make a flavor of them, change its pools, refuse deleting the last
pool of a flavor, delete everything.

Usage: /usr/bin/python3 src/test/clients/zaqarclient_pools.py URL POOL_URI_1 POOL_URI_2
The pool URIs name two empty PostgreSQL databases. The client never sends roles: with authentication off, Zaqar (and
Pigeon with pigeon.auth.trust-roles-header) takes the operator from X-Roles, which a deployment's auth proxy adds;
this script adds it to every request as such a proxy would.
Prints one line per step; exits non-zero at the first step that does not behave as the client expects.
"""
import sys
import uuid

from zaqarclient.queues import client
from zaqarclient.transport import errors
from zaqarclient.transport import http

url, first_uri, second_uri = sys.argv[1], sys.argv[2], sys.argv[3]
send = http.HttpTransport.send


def send_as_operator(self, request):
    request.headers['X-Roles'] = 'admin'
    return send(self, request)


http.HttpTransport.send = send_as_operator

suffix = uuid.uuid4().hex[:8]
conf = {'auth_opts': {'backend': 'noauth', 'options': {'os_project_id': 'operator-' + suffix}}}
zaqar = client.Client(url, version=2, conf=conf)


def step(name, condition):
    if not condition:
        print('FAIL ' + name)
        sys.exit(1)
    print('ok   ' + name)


made = []
try:
    first = zaqar.pool('client-a-' + suffix, weight=10, uri=first_uri, options={'zone': 'a'})
    made.append(first)
    second = zaqar.pool('client-b-' + suffix, weight=20, uri=second_uri)
    made.append(second)
    shown = first.get()
    step('create and get pool', shown['name'] == 'client-a-' + suffix and shown['weight'] == 10
         and ':*****@' in shown['uri'] and shown['href'] == '/v2/pools/client-a-' + suffix)
    listed = [p.name for p in zaqar.pools(detailed=True) if p.name.endswith(suffix)]
    step('list pools', listed == ['client-a-' + suffix, 'client-b-' + suffix])
    first.update({'weight': 5})
    step('update pool', first.get()['weight'] == 5)

    gold = zaqar.flavor('gold-' + suffix, pool_list=['client-a-' + suffix])
    made.insert(0, gold)
    step('create and get flavor', gold.get()['pool_list'] == ['client-a-' + suffix])
    gold.update({'pool_list': ['client-b-' + suffix]})
    step('update flavor', gold.get()['pool_list'] == ['client-b-' + suffix]
         and first.get()['flavor'] is None and second.get()['flavor'] == 'gold-' + suffix)
    step('list flavors', 'gold-' + suffix in [f.name for f in zaqar.flavors()])
    try:
        second.delete()
        step('the last pool of a flavor is kept', False)
    except errors.ForbiddenError:
        step('the last pool of a flavor is kept', True)

    gold.delete()
    second.delete()
    first.delete()
    step('delete flavor and pools', [p.name for p in zaqar.pools() if p.name.endswith(suffix)] == [])
finally:
    # A step that failed leaves weighted pools registered, where every later queue of the server would be placed:
    # take back what this run made, flavor first (after a run that passed, these find nothing, which is ignored).
    for thing in made:
        try:
            thing.delete()
        except Exception:
            pass
print('all steps passed')
