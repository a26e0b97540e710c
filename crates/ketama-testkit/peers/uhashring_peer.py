# Asks uhashring (Debian python3-uhashring) where keys go: a
# uhashring.HashRing of the node names as its users give them (a list of
# names, or a {name: weight} dict when weights are set), in its default mode
# or with hash_fn='ketama', and HashRing.get_node on each key (a str).
#
# Usage: python3 uhashring_peer.py CASE_DIR...
# Each CASE_DIR has `servers` (first line `default` or `ketama`, with
# ` VNODES` when vnodes is set, then one
# node per line: NAME or NAME<TAB>WEIGHT) and `keys` (one key per line in
# hex, UTF-8 text). The peer writes `out` (each key's node index) and, for
# the ketama ring, `dump` (the ring, "point index" in ring order, each
# point once).
import importlib.metadata
import os
import sys

from uhashring import HashRing

for case in sys.argv[1:]:
    with open(os.path.join(case, 'servers')) as f:
        lines = f.read().split('\n')[:-1]
    mode, *vnodes = lines[0].split(' ')
    entries = [line.split('\t') for line in lines[1:]]
    names = [entry[0] for entry in entries]
    if any(len(entry) > 1 for entry in entries):
        nodes = {entry[0]: int(entry[1]) if len(entry) > 1 else 1 for entry in entries}
    else:
        nodes = names
    options = {'vnodes': int(vnodes[0])} if vnodes else {}
    if mode == 'ketama':
        options['hash_fn'] = 'ketama'
    ring = HashRing(nodes, **options)
    index = {name: i for i, name in enumerate(names)}
    with open(os.path.join(case, 'keys')) as f, open(os.path.join(case, 'out'), 'w') as out:
        for hexed in f.read().split('\n')[:-1]:
            key = bytes.fromhex(hexed).decode('utf-8')
            out.write('%d\n' % index[ring.get_node(key)])
    if mode == 'ketama':
        # get_points() lists an equal point once per node that generated
        # it, each with the node the dictionary kept: write it once.
        with open(os.path.join(case, 'dump'), 'w') as dump:
            previous = None
            for point, name in ring.get_points():
                if point != previous:
                    dump.write('%d %d\n' % (point, index[name]))
                previous = point
print('uhashring %s' % importlib.metadata.version('uhashring'))
