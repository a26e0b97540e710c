"""A 3 -> 4 move under warm-up with ketama.pymemcache.MigratingClient, on
real memcached servers (tests/bindings/python.rs starts them and passes
their addresses: the first three are the old pool, all four the new one).

Before the move the keys are written as a deployment on the old ring writes
them: pymemcache's HashClient with the libketama hasher. During the warm
phase every key is read through the migrating client (each must be the
value written: 0 misses, 0 stale), keys are rewritten and deleted and read
back (by this client and by a second one a phase behind), and what the
servers hold is read with plain pymemcache clients. Prints one summary line.
"""

import sys
import time

from pymemcache.client.base import Client
from pymemcache.client.hash import HashClient

import ketama
from ketama.pymemcache import KetamaHasher, MigratingClient

servers = sys.argv[1:]
assert len(servers) == 4, servers
old, new = servers[:3], servers
KEYS = [f"user:{i}" for i in range(3000)]

# Before the move: the old pool, as pymemcache places keys on it.
before = HashClient(old, hasher=KetamaHasher)
for key in KEYS:
    assert before.set(key, f"v1:{key}".encode(), noreply=False)

migration = ketama.Migration(ketama.Ring(old), ketama.Ring(new))
moved = [key for key in KEYS if migration.route(key)[1] is not None]
for key in moved:
    new_owner, old_owner = migration.route(key)
    assert new_owner == new[3] and old_owner in old, (key, new_owner, old_owner)
share = len(moved) / len(KEYS)
assert 0.15 < share < 0.35, share  # about a quarter moves to the new server

direct = {address: Client(address) for address in servers}
assert all(direct[new[3]].get(key) is None for key in moved), "the new server starts empty"

now = int(time.time() * 1000)
# The warm phase: started 2 s ago, 1 s of prepare, then 1 h of warm-up.
client = MigratingClient(old, new, mode="warmup", start_ms=now - 2000, options="interval=1s,warmup=1h")
assert client.migration.phase(moved[0]) == "warm"
misses = stale = 0
for key in KEYS:
    value = client.get(key)
    if value is None:
        misses += 1
    elif value != f"v1:{key}".encode():
        stale += 1
assert (misses, stale) == (0, 0), (misses, stale)
# The moved keys were copied forward to their new owner, exactly.
copied = sum(direct[new[3]].get(key) == f"v1:{key}".encode() for key in moved)
assert copied == len(moved), (copied, len(moved))
many = client.get_many(KEYS[:200])
assert many == {key: f"v1:{key}".encode() for key in KEYS[:200]}, "get_many"

# Writes during the move are read back, by this client and by another one
# a phase behind (its clock late: still in prepare, it reads the old owners).
late = int(time.time() * 1000) - 100
behind = MigratingClient(old, new, mode="warmup", start_ms=late, options="interval=60s,warmup=1h")
assert behind.migration.phase(moved[0]) == "prepare"
rewritten = moved[:100] + [k for k in KEYS if k not in moved][:100]
for key in rewritten:
    assert client.set(key, f"v2:{key}".encode())
written_back = sum(client.get(key) == f"v2:{key}".encode() for key in rewritten)
assert written_back == len(rewritten), written_back
stale_behind = sum(behind.get(key) not in (None, f"v2:{key}".encode()) for key in rewritten)
assert stale_behind == 0, stale_behind
# A moved key's old copy was cleared before the new one was written.
assert all(direct[migration.route(k)[1]].get(k) is None for k in moved[:100])
assert client.set_many({key: f"v3:{key}".encode() for key in moved[100:150]}) == []
assert all(client.get(key) == f"v3:{key}".encode() for key in moved[100:150])

# add and delete during the move: no resurrection from the old owner.
deleted = moved[150:250]
for key in deleted:
    assert client.delete(key)
    assert not client.delete(key)
resurrected = sum(client.get(key) is not None or behind.get(key) is not None for key in deleted)
assert resurrected == 0, resurrected
assert all(client.add(key, b"added") for key in deleted[:50])
assert not client.add(moved[300], b"added"), "add of a key the old owner holds"
assert all(client.get(key) == b"added" for key in deleted[:50])

# After the schedule: the new ring alone finds every key carried forward.
after = MigratingClient(old, new, mode="warmup", start_ms=now - 10_000_000, options="interval=1s,warmup=1h")
assert after.migration.phase(moved[0]) == "new"
untouched = moved[300:]
after_hits = sum(after.get(key) == f"v1:{key}".encode() for key in untouched)
assert after_hits == len(untouched), (after_hits, len(untouched))

for c in (client, behind, after):
    c.close()
print(
    f"keys={len(KEYS)} moved={len(moved)} misses={misses} stale={stale} copied={copied} "
    f"rewritten={written_back} deleted={len(deleted)} resurrected={resurrected} after_hits={after_hits}"
)
