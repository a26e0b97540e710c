"""Ask the original libketama C code (PyPI ketama==0.1.1, which compiles
libketama's own ketama.c and md5.c) for its continuum and lookups.

The C functions are called through ctypes on the compiled extension module,
so the raw `mcs` records (point + 22 address bytes) are read exactly as a C
client reads them.  This package's variant of the C API takes explicit
lengths: ketama_get_server(key, cont, len) and ketama_hashi(key, len).

usage: libketama_oracle.py roll SERVERS_FILE [KEYS_HEX_FILE]
         prints   roll<TAB>1            or  roll<TAB>0<TAB><ketama_error()>
                  points<TAB>N
                  P<TAB>point<TAB>hex(ip[22])      (N lines, continuum order)
                  K<TAB>index<TAB>point            (one line per key)
       libketama_oracle.py print SERVERS_FILE
         runs ketama_print_continuum (C stdout)
       libketama_oracle.py counts SERVERS_FILE...
         prints numpoints of each file's continuum, one per line (-1 if the roll fails)
"""
import ctypes
import sys

import ketama  # the original C code, compiled by pip

lib = ctypes.CDLL(ketama.__file__)
lib.ketama_roll.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_char_p]
lib.ketama_roll.restype = ctypes.c_int
lib.ketama_smoke.argtypes = [ctypes.c_void_p]
lib.ketama_get_server.argtypes = [ctypes.c_char_p, ctypes.c_void_p, ctypes.c_size_t]
lib.ketama_get_server.restype = ctypes.c_void_p
lib.ketama_error.restype = ctypes.c_char_p
lib.ketama_print_continuum.argtypes = [ctypes.c_void_p]
libc = ctypes.CDLL(None)

MCS_SIZE = 28


def counts(paths):
    for path in paths:
        cont = ctypes.c_void_p()
        if lib.ketama_roll(ctypes.byref(cont), path.encode()):
            print(ctypes.c_int.from_address(cont.value).value)
            lib.ketama_smoke(cont)
        else:
            print(-1)


def main():
    if sys.argv[1] == "counts":
        return counts(sys.argv[2:])
    mode, path = sys.argv[1], sys.argv[2].encode()
    cont = ctypes.c_void_p()
    ok = lib.ketama_roll(ctypes.byref(cont), path)
    out = sys.stdout.buffer
    if mode == "print":
        if ok:
            sys.stdout.flush()
            lib.ketama_print_continuum(cont)
            libc.fflush(None)
            lib.ketama_smoke(cont)
        return
    if not ok:
        out.write(b"roll\t0\t" + (lib.ketama_error() or b"") + b"\n")
        return
    out.write(b"roll\t1\n")
    numpoints = ctypes.c_int.from_address(cont.value).value
    array = ctypes.c_void_p.from_address(cont.value + 16).value
    raw = ctypes.string_at(array, numpoints * MCS_SIZE)
    lines = [b"points\t%d\n" % numpoints]
    for i in range(numpoints):
        rec = raw[i * MCS_SIZE:(i + 1) * MCS_SIZE]
        point = int.from_bytes(rec[0:4], "little")
        lines.append(b"P\t%d\t%s\n" % (point, rec[4:26].hex().encode()))
    out.write(b"".join(lines))
    if len(sys.argv) > 3:
        with open(sys.argv[3], "rb") as keys:
            for line in keys:
                key = bytes.fromhex(line.strip().decode())
                found = lib.ketama_get_server(key, cont, len(key))
                index = (found - array) // MCS_SIZE
                point = ctypes.c_uint.from_address(found).value
                out.write(b"K\t%d\t%d\n" % (index, point))
    lib.ketama_smoke(cont)


if __name__ == "__main__":
    main()
