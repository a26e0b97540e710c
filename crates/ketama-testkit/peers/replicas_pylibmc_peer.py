# Stores keys through pylibmc (Debian python3-pylibmc, over libmemcached)
# with MEMCACHED_BEHAVIOR_NUMBER_OF_REPLICAS set (pylibmc's `num_replicas`
# behaviour), over the binary protocol (libmemcached writes replicas over it
# alone), into real memcached servers; the test then reads what each server
# holds.
#
# Usage: python3 replicas_pylibmc_peer.py CASE_DIR...
# Each CASE_DIR has `servers` (first line: the distribution behaviour,
# `ketama` or `ketama_weighted`, and num_replicas, separated by a space;
# then one server per line, `HOST:PORT` or `HOST:PORT:WEIGHT`) and `keys`
# (one key per line in hex). Every key is set to `1`; a failed set fails.
import os
import sys

import _pylibmc
import pylibmc

for case in sys.argv[1:]:
    with open(os.path.join(case, 'servers')) as f:
        lines = f.read().split('\n')[:-1]
    distribution, replicas = lines[0].split(' ')
    behaviors = {distribution: True, 'num_replicas': int(replicas)}
    client = pylibmc.Client(lines[1:], binary=True, behaviors=behaviors)
    assert client.behaviors['num_replicas'] == int(replicas), client.behaviors
    with open(os.path.join(case, 'keys')) as f:
        keys = [bytes.fromhex(h) for h in f.read().split('\n')[:-1]]
    for key in keys:
        if not client.set(key, b'1'):
            sys.exit('set %r failed' % key)
    # The replicas are quiet sets left in each connection's buffer:
    # closing the connections flushes them.
    client.disconnect_all()
print('pylibmc %s (libmemcached %s)' % (pylibmc.__version__, _pylibmc.libmemcached_version))
