"""Dumps what a `ketama` Python module answers for a server file, so that this
binding can be compared with the PyPI ketama==0.1.1 oracle (which compiles the
original libketama C code) line by line.

usage: continuum_dump.py oracle|ours SERVERS_FILE [KEYS_HEX_FILE]
  prints  error<TAB>MESSAGE                      when the file is rejected, else
          points<TAB>N
          P<TAB>POINT<TAB>HEX(IP[:22])            get_points(), continuum order
          K<TAB>POINT<TAB>HEX(IP[:22])<TAB>HASHI  get_server(key) and hashi(key), per key
The original keeps addresses in char[22]: longer ones are compared on those 22 bytes.
The oracle module reads such an address past its 22 bytes into the next record
and usually fails to decode it (UnicodeDecodeError, or SystemError); it then answers through
get_points() nothing at all and through get_server() no address: those are
printed as "?" (the point, from ketama_get_server in C, is still printed).
Keys are passed as bytes (the oracle hashes a str key's first len(str) UTF-8 bytes only).

  oracle: ketama.Ketama(path) (RuntimeError on failure); hashi is the C
          ketama_hashi(key, len) of the same compiled module.
  ours:   ketama.Continuum(path) (KetamaError on failure), ketama.hashi(key).
"""

import ctypes
import sys

import ketama

mode, path = sys.argv[1], sys.argv[2]
out = []
if mode == "oracle":
    lib = ctypes.CDLL(ketama.__file__)
    lib.ketama_hashi.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
    lib.ketama_hashi.restype = ctypes.c_uint

    def open_continuum(p):
        return ketama.Ketama(p)

    def hashi(key):
        return lib.ketama_hashi(key, len(key))

    lib.ketama_roll.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_char_p]
    lib.ketama_get_server.argtypes = [ctypes.c_char_p, ctypes.c_void_p, ctypes.c_size_t]
    lib.ketama_get_server.restype = ctypes.POINTER(ctypes.c_uint)
    raw = ctypes.c_void_p()

    def oracle_point(key):
        """The point the C ketama_get_server(key, cont, len) answers."""
        if not raw.value and not lib.ketama_roll(ctypes.byref(raw), path.encode()):
            raise RuntimeError("ketama_roll failed")
        return lib.ketama_get_server(key, raw, len(key)).contents.value

    failure = RuntimeError
else:
    open_continuum = ketama.Continuum
    hashi = ketama.hashi
    failure = ketama.KetamaError


def ip(text):
    return text.encode("utf-8", "surrogateescape")[:22].hex()


try:
    continuum = open_continuum(path)
except failure as e:
    print(f"error\t{e}")
    sys.exit(0)
try:
    points = continuum.get_points()
    out.append(f"points\t{len(points)}")
    out.extend(f"P\t{point}\t{ip(address)}" for point, address in points)
except (UnicodeDecodeError, SystemError):
    out.append("points\t?")
if len(sys.argv) > 3:
    with open(sys.argv[3]) as keys:
        for line in keys:
            key = bytes.fromhex(line.strip())
            try:
                point, address = continuum.get_server(key)
                out.append(f"K\t{point}\t{ip(address)}\t{hashi(key)}")
            except (UnicodeDecodeError, SystemError):
                out.append(f"K\t{oracle_point(key)}\t?\t{hashi(key)}")
print("\n".join(out))
