# Asks PyPI libmc (douban's C++ memcached client, installed into
# target/pypi-peers by scripts/deps.sh) where keys go: a libmc.Client of the
# servers as its users write them ('host:port', 'host') with its default
# hash (MD5) and Client.get_host_by_key on each key (a str, sent as UTF-8).
#
# Usage: python libmc_peer.py CASE_DIR...
# Each CASE_DIR has `servers` (one server per line) and `keys` (one key per
# line in hex, UTF-8 text). The peer writes `out`: each key's server index.
import importlib.metadata
import os
import sys

import libmc

for case in sys.argv[1:]:
    with open(os.path.join(case, 'servers')) as f:
        servers = f.read().split('\n')[:-1]
    client = libmc.Client(servers)
    # libmc names a server host:port (the default port written out).
    index = {}
    for i, server in enumerate(servers):
        index[server if ':' in server else server + ':11211'] = i
    with open(os.path.join(case, 'keys')) as f, open(os.path.join(case, 'out'), 'w') as out:
        for hexed in f.read().split('\n')[:-1]:
            key = bytes.fromhex(hexed).decode('utf-8')
            out.write('%d\n' % index[client.get_host_by_key(key)])
print('libmc %s' % importlib.metadata.version('libmc'))
