# Asks pymemcache (Debian python3-pymemcache) where keys go: a HashClient
# with its default hasher (RendezvousHash over murmur3_32) built from the
# server strings as its users write them. Nothing connects: HashClient
# creates its per-server clients lazily, and _get_client only places the key.
#
# Usage: python3 pymemcache_peer.py CASE_DIR...
# Each CASE_DIR has `servers` (one "host:port" string per line), `keys` (one
# key per line, read as UTF-8 text; a byte that is not UTF-8 becomes a lone
# surrogate, as Python's surrogateescape reads it) and optionally `down`
# (indices of servers removed as HashClient removes a dead server). The peer
# writes `out`: each key's server index (-1 when no server is left), and an
# empty `dump` (the placement has no continuum).
import os
import sys

import pymemcache
from pymemcache.client.hash import HashClient
from pymemcache.exceptions import MemcacheIllegalInputError

for case in sys.argv[1:]:
    with open(os.path.join(case, 'servers')) as f:
        servers = [line for line in f.read().split('\n') if line]
    client = HashClient(servers, allow_unicode_keys=True)
    index = {}
    for i, server in enumerate(servers):
        spec = client.clients[client._make_client_key(
            pymemcache.client.base.normalize_server_spec(server))].server
        index.setdefault(spec, i)
    down_path = os.path.join(case, 'down')
    if os.path.exists(down_path):
        with open(down_path) as f:
            for i in [int(x) for x in f.read().split()]:
                spec = pymemcache.client.base.normalize_server_spec(servers[i])
                client.hasher.remove_node(client._make_client_key(spec))
    refused = 0
    with open(os.path.join(case, 'keys'), 'rb') as f, \
            open(os.path.join(case, 'out'), 'w') as out:
        for raw in f.read().split(b'\n')[:-1]:
            key = raw.decode('utf-8', 'surrogateescape')
            try:
                found = client._get_client(key)
                server = None if found is None else found.server
            except (MemcacheIllegalInputError, UnicodeError):
                # Refused before placement (whitespace, control bytes,
                # over 250 bytes, lone surrogates): the hasher still places it.
                refused += 1
                node = client.hasher.get_node(key)
                server = None if node is None else client.clients[node].server
            except pymemcache.exceptions.MemcacheError:
                server = None
            out.write('%d\n' % (-1 if server is None else index[server]))
    open(os.path.join(case, 'dump'), 'w').close()
    print('%s: %d keys refused by check_key, placed by the hasher' % (case, refused))
print('pymemcache %s' % pymemcache.__version__)
