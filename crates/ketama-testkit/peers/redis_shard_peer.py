# Asks redis-shard (PyPI redis-shard 0.3.7, in target/redis-shard-venv) where
# keys go: a RedisShardAPI over the server configurations its users write
# (dicts with a name, or redis:// URLs with ?name=), with the default
# hash_method 'crc32', and get_server_name(key) for each key: the server
# every sharded command on that key is sent to. Building the API opens no
# connection.
#
# Usage: python redis_shard_peer.py CASE_DIR...
# Each CASE_DIR has `servers` (one server per line: `dict NAME HOST PORT` or
# `url URL`) and `keys` (one key per line in hex; each key is given as the
# str of its bytes read as ISO-8859-1, the text redis-shard encodes back to
# those bytes). The peer writes `out` (each key's server index) and `dump`
# (the ring, "point index" for each distinct point in ring order).
import importlib.metadata
import os
import sys

from redis_shard.shard import RedisShardAPI

for case in sys.argv[1:]:
    configs = []
    with open(os.path.join(case, 'servers')) as f:
        for line in f.read().split('\n')[:-1]:
            kind, *rest = line.split(' ')
            if kind == 'dict':
                configs.append({'name': rest[0], 'host': rest[1], 'port': int(rest[2])})
            elif kind == 'url':
                configs.append(rest[0])
            else:
                raise ValueError('unknown server line %r' % line)
    api = RedisShardAPI(configs)
    index = {name: i for i, name in enumerate(api.nodes)}
    with open(os.path.join(case, 'keys')) as f, open(os.path.join(case, 'out'), 'w') as out:
        for hexed in f.read().split('\n')[:-1]:
            key = bytes.fromhex(hexed).decode('iso-8859-1')
            out.write('%d\n' % index[api.get_server_name(key)])
    ring = api.ring
    with open(os.path.join(case, 'dump'), 'w') as dump:
        for point in sorted(set(ring.sorted_keys)):
            dump.write('%d %d\n' % (point, index[ring.ring[point]]))
print('redis-shard %s (redis-py %s)' % (importlib.metadata.version('redis-shard'),
                                        importlib.metadata.version('redis')))
