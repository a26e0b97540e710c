"""KEY<TAB>SERVER for each key read from stdin, like `ketama find FILE`:
python find_keys.py SERVERS_FILE [FLAVOUR] [HASH] [PARSE]. Used by tests/bindings/agreement.rs.
Keys are looked up in one batch (Ring.servers_for); every tenth key is also
looked up alone and must agree."""

import sys

import ketama

flavour = sys.argv[2] if len(sys.argv) > 2 else "libketama"
hash_name = sys.argv[3] if len(sys.argv) > 3 else None
options = sys.argv[5] if len(sys.argv) > 5 and sys.argv[5] else None
ring = ketama.Ring.from_file(
    sys.argv[1], flavour, hash_name, sys.argv[4] if len(sys.argv) > 4 else "strict", options=options
)
keys = sys.stdin.buffer.read().decode("utf-8").split("\n")
if keys and keys[-1] == "":
    keys.pop()
keys = [k.rstrip("\r") for k in keys]
servers = ring.servers_for(keys)
for key, server in list(zip(keys, servers))[::10]:
    if ring.server(key) != server:
        sys.exit(f"single and batch lookups differ for {key!r}")
sys.stdout.buffer.write("".join(f"{k}\t{s}\n" for k, s in zip(keys, servers)).encode("utf-8"))
