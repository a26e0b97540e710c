"""pymemcache placement with ketama.pymemcache.KetamaHasher against real memcached.

usage: pymemcache_placement.py HOST:PORT HOST:PORT HOST:PORT
  1. pylibmc (libmemcached, KETAMA_WEIGHTED) writes 10,000 keys; pymemcache's
     HashClient with KetamaHasher.flavour("libmemcached") reads them all back.
     Prints   libmemcached<TAB>WRITTEN<TAB>READ_BACK<TAB>MISSES
  2. HashClient with KetamaHasher.flavour("libketama") writes 1,000 keys; each
     key is then looked for on every server.
     Prints   P<TAB>KEY<TAB>SERVER holding it (one line per key)
Used by tests/bindings/agreement.rs (which compares the P lines with PHP and Java).
"""

import sys

import pylibmc
from pymemcache.client.base import Client
from pymemcache.client.hash import HashClient

from ketama.pymemcache import KetamaHasher

servers = sys.argv[1:]
hosts = [(s.rsplit(":", 1)[0], int(s.rsplit(":", 1)[1])) for s in servers]
out = []

writer = pylibmc.Client(servers, behaviors={"ketama_weighted": True})
keys = [f"pylibmc:{i}" for i in range(10_000)]
for i, key in enumerate(keys):
    if not writer.set(key, f"value {i}"):
        sys.exit(f"pylibmc could not store {key}")
writer.disconnect_all()

reader = HashClient(hosts, hasher=KetamaHasher.flavour("libmemcached"))
read_back = misses = 0
for i, key in enumerate(keys):
    value = reader.get(key)
    if value == f"value {i}".encode():
        read_back += 1
    else:
        misses += 1
out.append(f"libmemcached\t{len(keys)}\t{read_back}\t{misses}")

placer = HashClient(hosts, hasher=KetamaHasher.flavour("libketama"))
direct = {s: Client(h) for s, h in zip(servers, hosts)}
for i in range(1000):
    key = f"placed:{i}"
    # noreply=False: the value is stored before the servers are asked for it.
    if not placer.set(key, b"x", noreply=False):
        sys.exit(f"HashClient could not store {key}")
    holders = [s for s, c in direct.items() if c.get(key) is not None]
    out.append(f"P\t{key}\t{','.join(holders)}")
for c in direct.values():
    c.close()
print("\n".join(out))
