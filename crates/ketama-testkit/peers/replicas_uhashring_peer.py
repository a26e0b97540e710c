# Asks uhashring (Debian python3-uhashring) for replica lists:
# HashRing.range(key, size), the nodes from the key's position on, each node
# once (it yields each node's configuration: mapped back to its name here),
# in its default mode and with hash_fn='ketama'.
#
# Usage: python3 replicas_uhashring_peer.py CASE_DIR...
# Each CASE_DIR has `servers` (first line `default` or `ketama`, then the
# sizes asked, separated by spaces; then one node per line: NAME or
# NAME<TAB>WEIGHT) and `keys` (one key per line in hex, UTF-8 text). The
# peer writes `out`: per key one line, per size the node indices joined by
# `,`, sizes separated by a space.
import importlib.metadata
import os
import sys

from uhashring import HashRing

for case in sys.argv[1:]:
    with open(os.path.join(case, 'servers')) as f:
        lines = f.read().split('\n')[:-1]
    mode, *sizes = lines[0].split(' ')
    sizes = [int(s) for s in sizes]
    entries = [line.split('\t') for line in lines[1:]]
    names = [entry[0] for entry in entries]
    if any(len(entry) > 1 for entry in entries):
        nodes = {entry[0]: int(entry[1]) if len(entry) > 1 else 1 for entry in entries}
    else:
        nodes = names
    options = {'hash_fn': 'ketama'} if mode == 'ketama' else {}
    ring = HashRing(nodes, **options)
    # range() yields each node's configuration dictionary: its node name is
    # the key it is kept under.
    name_of = {id(conf): name for name, conf in ring.runtime._nodes.items()}
    index = {name: i for i, name in enumerate(names)}
    with open(os.path.join(case, 'keys')) as f, open(os.path.join(case, 'out'), 'w') as out:
        for hexed in f.read().split('\n')[:-1]:
            key = bytes.fromhex(hexed).decode('utf-8')
            lists = []
            for size in sizes:
                found = [index[name_of[id(conf)]] for conf in ring.range(key, size)]
                lists.append(','.join(str(i) for i in found))
            out.write(' '.join(lists) + '\n')
print('uhashring %s' % importlib.metadata.version('uhashring'))
