# Asks PyPI emcache (installed into target/pypi-peers by scripts/deps.sh)
# where keys go: an emcache client over the nodes as its users give them
# (MemcachedHostAddress(host, port), or MemcachedUnixSocketPath(path)),
# created with min_connections=0 so that no connection is tried and every
# node stays healthy, and its cluster's pick_node (what every command
# uses) on each key (bytes).
#
# Usage: python emcache_peer.py CASE_DIR...
# Each CASE_DIR has `servers` (one node per line: HOST<TAB>PORT or
# unix<TAB>PATH) and `keys` (one key per line in hex). The peer writes
# `out` (each key's node index).
import asyncio
import importlib.metadata
import os
import sys

import emcache
from emcache import MemcachedHostAddress, MemcachedUnixSocketPath


def address(line):
    kind, rest = line.split('\t')
    if kind == 'unix':
        return MemcachedUnixSocketPath(rest)
    return MemcachedHostAddress(kind, int(rest))


async def main():
    for case in sys.argv[1:]:
        with open(os.path.join(case, 'servers')) as f:
            nodes = [address(line) for line in f.read().split('\n')[:-1]]
        client = await emcache.create_client(nodes, min_connections=0)
        cluster = client._cluster
        index = {node: i for i, node in enumerate(nodes)}
        with open(os.path.join(case, 'keys')) as f, open(os.path.join(case, 'out'), 'w') as out:
            for hexed in f.read().split('\n')[:-1]:
                node = cluster.pick_node(bytes.fromhex(hexed))
                out.write('%d\n' % index[node.memcached_host_address])
        assert len(cluster.healthy_nodes) == len(nodes), 'a node left the scoring'
        await client.close()


asyncio.run(main())
print('emcache %s' % importlib.metadata.version('emcache'))
