"""Asks XXH3 (Debian python3-xxhash over libxxhash) for the 64-bit hash of
each key as memcached's proxy hashes it (`XXH3_64bits_withSeed`, seed 0),
and gives the pool's bucket order: the backends as listed. The jump to a
bucket is asked of GuavaJumpPeer.java.

Usage: xxh3_peer.py CASE_DIR...
Each CASE_DIR has `servers` (one backend a line) and `keys` (one key a line
in hex); the peer writes `order` (0..n-1) and `hashes` (decimal).
"""

import os
import sys

import xxhash


def main():
    for case in sys.argv[1:]:
        with open(os.path.join(case, "servers"), encoding="utf-8") as f:
            servers = f.read().split("\n")[:-1]
        with open(os.path.join(case, "keys"), encoding="ascii") as f:
            keys = [bytes.fromhex(line) for line in f.read().split("\n")[:-1]]
        with open(os.path.join(case, "order"), "w", encoding="ascii") as f:
            f.write("".join(f"{i}\n" for i in range(len(servers))))
        with open(os.path.join(case, "hashes"), "w", encoding="ascii") as f:
            f.write("".join(f"{xxhash.xxh3_64_intdigest(k, seed=0)}\n" for k in keys))
    print(f"python3-xxhash {xxhash.VERSION} (libxxhash {xxhash.XXHASH_VERSION}) xxh3_64")


if __name__ == "__main__":
    main()
