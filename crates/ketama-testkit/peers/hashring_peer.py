# Asks PyPI hashring (installed into target/pypi-peers by scripts/deps.sh)
# where keys go: a hashring.HashRing of the node names as its users give
# them (a list of names, with a {name: weight} dict when weights are set)
# and HashRing.get_node on each key (a str).
#
# Usage: python hashring_peer.py CASE_DIR...
# Each CASE_DIR has `servers` (one node per line: NAME or NAME<TAB>WEIGHT)
# and `keys` (one key per line in hex, UTF-8 text). The peer writes `out`
# (each key's node index) and `dump` (the ring, "point index" in ring
# order, each point once, with the node the ring's dictionary kept).
import importlib.metadata
import os
import sys

from hashring import HashRing

for case in sys.argv[1:]:
    with open(os.path.join(case, 'servers')) as f:
        entries = [line.split('\t') for line in f.read().split('\n')[:-1]]
    names = [entry[0] for entry in entries]
    weights = {entry[0]: int(entry[1]) for entry in entries if len(entry) > 1}
    ring = HashRing(names, weights) if weights else HashRing(names)
    index = {name: i for i, name in enumerate(names)}
    with open(os.path.join(case, 'keys')) as f, open(os.path.join(case, 'out'), 'w') as out:
        for hexed in f.read().split('\n')[:-1]:
            key = bytes.fromhex(hexed).decode('utf-8')
            out.write('%d\n' % index[ring.get_node(key)])
    with open(os.path.join(case, 'dump'), 'w') as dump:
        previous = None
        for point in ring._sorted_keys:
            if point != previous:
                dump.write('%d %d\n' % (point, index[ring.ring[point]]))
            previous = point
print('hashring %s' % importlib.metadata.version('hashring'))
