# Asks python-memcached (Debian python3-memcache, module `memcache`) where
# keys go: a memcache.Client built from the servers as its users write them
# ("host:port", or ("host:port", weight)), and Client._get_server on each
# key as Client.get encodes it (_encode_key: text as UTF-8). The connection
# check is replaced: a server listed in `down` refuses, the others accept,
# so _get_server's own rehashing decides where a key goes when one is down.
#
# Usage: python3 python_memcached_peer.py CASE_DIR...
# Each CASE_DIR has `servers` (ADDRESS or ADDRESS<TAB>WEIGHT per line),
# `keys` (one key per line: UTF-8 text as str, other bytes as bytes) and
# optionally `down` (server indices). With PYTHON_MEMCACHED_OLD_HASH=1 the
# client hashes with binascii.crc32 (useOldServerHashFunction). The peer writes `out` (each key's
# server index, -1 when the client gives up) and an empty `dump`.
import os
import sys

import memcache

# PYTHON_MEMCACHED_OLD_HASH=1: memcache.useOldServerHashFunction() first.
if os.environ.get('PYTHON_MEMCACHED_OLD_HASH'):
    memcache.useOldServerHashFunction()

for case in sys.argv[1:]:
    servers = []
    with open(os.path.join(case, 'servers')) as f:
        for line in f.read().split('\n'):
            if not line:
                continue
            if '\t' in line:
                address, weight = line.split('\t')
                servers.append((address, int(weight)))
            else:
                servers.append(line)
    client = memcache.Client(servers)
    down = set()
    down_path = os.path.join(case, 'down')
    if os.path.exists(down_path):
        with open(down_path) as f:
            down = {int(x) for x in f.read().split()}
    position = {id(host): i for i, host in enumerate(client.servers)}
    down_hosts = {id(client.servers[i]) for i in down}
    memcache._Host.connect = lambda self: 0 if id(self) in down_hosts else 1
    with open(os.path.join(case, 'keys'), 'rb') as f, \
            open(os.path.join(case, 'out'), 'w') as out:
        for raw in f.read().split(b'\n')[:-1]:
            try:
                key = raw.decode('utf-8')
            except UnicodeDecodeError:
                key = raw
            server, _ = client._get_server(client._encode_key(key))
            out.write('%d\n' % (-1 if server is None else position[id(server)]))
    open(os.path.join(case, 'dump'), 'w').close()
print('python-memcached %s' % memcache.__version__)
