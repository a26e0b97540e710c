# Asks django-redis (Debian python3-django-redis) where keys go: a
# RedisCache whose LOCATION is the list of server URLs, with
# CLIENT_CLASS django_redis.client.ShardClient and default settings, and
# for each key (a str) the server ShardClient.get would use:
# get_server_name(make_key(key)). Building the client opens no connection.
#
# Usage: python3 django_redis_peer.py CASE_DIR...
# Each CASE_DIR has `servers` (one LOCATION entry per line) and `keys` (one
# key per line in hex, UTF-8 text). The peer writes `out` (the index of
# each key's server, the first entry of that name).
import importlib.metadata
import os
import sys

import django
from django.conf import settings

settings.configure()
django.setup()

from django_redis.cache import RedisCache  # noqa: E402 (after settings)

for case in sys.argv[1:]:
    with open(os.path.join(case, 'servers')) as f:
        names = f.read().split('\n')[:-1]
    cache = RedisCache(names, {'OPTIONS': {'CLIENT_CLASS': 'django_redis.client.ShardClient'}})
    client = cache.client
    index = {}
    for i, name in enumerate(names):
        index.setdefault(name, i)
    with open(os.path.join(case, 'keys')) as f, open(os.path.join(case, 'out'), 'w') as out:
        for hexed in f.read().split('\n')[:-1]:
            key = bytes.fromhex(hexed).decode('utf-8')
            out.write('%d\n' % index[client.get_server_name(client.make_key(key))])
print('django-redis %s (Django %s)' % (importlib.metadata.version('django-redis'), django.get_version()))
