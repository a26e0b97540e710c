"""The modern ring (any flavour and hash) and the python_ketama-compatible Continuum."""

import array
import ctypes
import os
import threading
from collections import namedtuple

from . import _lib
from ._lib import KetamaError, check, lib, to_bytes

assert array.array("I").itemsize == 4, "array typecode I must be 32-bit for uint32_t"

Location = namedtuple("Location", "server_index address point point_index")
Location.__doc__ = "Where a key landed: server index (input order), address, continuum point and its index."


def _find_server_index(*args):
    """``ketama_find_server_index``, bound on first use (the library loads lazily)."""
    global _find_server_index
    _find_server_index = lib().ketama_find_server_index
    return _find_server_index(*args)


def flavour_id(flavour):
    """The ``ketama_flavour`` id of a flavour name or alias (``"libmemcached"``, ``"php-memcached"``...)."""
    if isinstance(flavour, int):
        if lib().ketama_flavour_name(flavour) is None:
            status = "KETAMA_ERR_INVALID_ARGUMENT"
            raise KetamaError(f"unknown flavour id {flavour}", _lib.names("status")[status], status)
        return flavour
    out = ctypes.c_uint32()
    check(lib().ketama_flavour_from_name(to_bytes(flavour, "flavour"), ctypes.byref(out)))
    return out.value


def flavour_name(flavour):
    """The canonical name of a flavour given by name, alias or id."""
    return lib().ketama_flavour_name(flavour_id(flavour)).decode()


def hash_id(flavour, hash_name):
    """The ``ketama_hash`` id of ``hash_name`` as ``flavour``'s peer spells it
    (``None`` or ``"default"``: the flavour's own, ``KETAMA_HASH_DEFAULT``)."""
    if hash_name is None:
        hash_name = "default"
    out = ctypes.c_uint32()
    check(lib().ketama_hash_from_name(flavour_id(flavour), to_bytes(hash_name, "hash"), ctypes.byref(out)))
    return out.value


def canonical_hash_id(hash_name):
    """The ``ketama_hash`` id of a canonical hash name or flavour-neutral alias (``"md5"``, ``"crc32a"``)."""
    out = ctypes.c_uint32()
    check(lib().ketama_hash_from_canonical_name(to_bytes(hash_name, "hash"), ctypes.byref(out)))
    return out.value


def parse_mode_id(parse):
    """The ``ketama_parse_mode`` id of a reading's name (``"strict"``, ``"libketama"``,
    ``"peers"``, ``"sockiopool"``, ``"nginx"``, ``"flavour"``...), as the library resolves it."""
    return _lib.enum_id("parse_mode", parse, "parse mode")


_md5 = []


def hashi(key):
    """libketama's key hash (``ketama_hashi``): word 0 of MD5(key), little-endian."""
    data = to_bytes(key)
    if not _md5:
        _md5.append(canonical_hash_id("md5"))
    out = ctypes.c_uint32()
    check(lib().ketama_hash_bytes(_md5[0], data, len(data), ctypes.byref(out)))
    return out.value


class _Handle:
    """Owns a library handle: closed once, deterministically or at collection."""

    _free = None

    def __init__(self, pointer):
        self._ptr = pointer
        self._close_lock = threading.Lock()
        # Bound now: at interpreter exit module globals may already be gone.
        self._free_fn = getattr(lib(), self._free)

    def _live(self):
        ptr = self._ptr
        if ptr is None:
            raise ValueError(f"{type(self).__name__} is closed")
        return ptr

    @property
    def closed(self):
        """Whether :meth:`close` was called."""
        return self._ptr is None

    def close(self):
        """Releases the native handle; a second call does nothing."""
        with self._close_lock:
            ptr, self._ptr = self._ptr, None
        if ptr is not None:
            self._free_fn(ptr)

    def __enter__(self):
        self._live()
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        if getattr(self, "_ptr", None) is not None:
            self.close()


def _server_specs(servers):
    """``ketama_server`` entries for a list of addresses / tuples or a dict address -> weight."""
    if isinstance(servers, (str, bytes)):
        raise TypeError("servers must be a list of servers or a dict address -> weight, not one string")
    if isinstance(servers, dict):
        servers = list(servers.items())
    entries = []
    for entry in servers:
        name = None
        weight = 0
        if isinstance(entry, (str, bytes)):
            address = entry
        else:
            entry = tuple(entry)
            if not 1 <= len(entry) <= 3:
                raise ValueError(f"a server is ADDRESS, (ADDRESS, WEIGHT) or (ADDRESS, WEIGHT, NAME), not {entry!r}")
            address = entry[0]
            weight = 0 if len(entry) < 2 or entry[1] is None else int(entry[1])
            name = entry[2] if len(entry) == 3 else None
        if weight < 0:
            raise ValueError(f"server {address!r}: weight must not be negative")
        address = to_bytes(address, "server address")
        name = None if name is None else to_bytes(name, "server name")
        entries.append((address, weight, name))
    return entries


def _options(options):
    """Placement options text for the library (None: none)."""
    return None if options is None else options.encode()


class Ring(_Handle):
    """An immutable consistent-hashing ring of any flavour; thread-safe.

    ``Ring(servers, flavour="libketama", hash=None)``: ``servers`` is a list of
    addresses, ``(address, weight)`` or ``(address, weight, name)`` tuples, or
    a dict address -> weight. ``Ring.from_file(path, ...)`` reads a server
    file. Close it with :meth:`close` or a ``with`` block.
    """

    _free = "ketama_ring_free"

    def __init__(self, servers, flavour="libketama", hash=None, options=None):
        entries = _server_specs(servers)
        array = (_lib.ServerSpec * len(entries))()
        for slot, (address, weight, name) in zip(array, entries):
            slot.address, slot.address_len, slot.weight = address, len(address), weight
            if name is not None:
                slot.name, slot.name_len = name, len(name)
        fid = flavour_id(flavour)
        out = ctypes.c_void_p()
        check(
            lib().ketama_ring_new_with_options(
                array, len(entries), fid, hash_id(fid, hash), _options(options), ctypes.byref(out)
            )
        )
        self._init(out.value, fid)

    @classmethod
    def from_file(cls, path, flavour="libketama", hash=None, parse="strict", options=None):
        """A ring from a server file read as ``parse`` says: ``"strict"``, ``"libketama"``,
        ``"peers"``, ``"sockiopool"``, ``"nginx"``, or ``"flavour"`` (the syntax the
        flavour's users write, as ``ketama --servers-file`` reads it). ``options`` are
        placement options as the library reads them (``"points=100"``, ``"hash_tag={}"``;
        None: the peer's defaults)."""
        mode = parse_mode_id(parse)
        fid = flavour_id(flavour)
        out = ctypes.c_void_p()
        check(
            lib().ketama_ring_new_from_file_with_options(
                os.fsencode(path), fid, hash_id(fid, hash), mode, _options(options), ctypes.byref(out)
            )
        )
        ring = cls.__new__(cls)
        ring._init(out.value, fid)
        return ring

    def _init(self, pointer, fid):
        _Handle.__init__(self, pointer)
        self.flavour = lib().ketama_flavour_name(fid).decode()
        count = lib().ketama_ring_server_count(pointer)
        info = _lib.ServerInfo()
        addresses = []
        points = []
        for i in range(count):
            check(lib().ketama_ring_server(pointer, i, ctypes.byref(info)))
            addresses.append(ctypes.string_at(info.address, info.address_len).decode("utf-8", "replace"))
            points.append(info.point_count)
        self._addresses = addresses
        self._point_counts = points

    @property
    def servers(self):
        """The server addresses in input order."""
        return list(self._addresses)

    @property
    def point_counts(self):
        """Points each server owns, in input order."""
        return list(self._point_counts)

    def __len__(self):
        return len(self._addresses)

    def point_count(self):
        """Number of points on the continuum."""
        return lib().ketama_ring_point_count(self._live())

    def points(self):
        """Every ``(point, server_index)`` in continuum order. A flavour that
        is not a continuum (pymemcache, python-memcached, cache-memcached)
        raises :class:`KetamaError` (KETAMA_ERR_INVALID_ARGUMENT) naming it."""
        ptr = self._live()
        point, index = ctypes.c_uint32(), ctypes.c_uint32()
        out = []
        count = lib().ketama_ring_point_count(ptr)
        if count == 0:
            # Point 0 of an empty continuum is out of range (no points: []);
            # a placement without a continuum is an error naming the flavour.
            status = lib().ketama_ring_point(ptr, 0, ctypes.byref(point), ctypes.byref(index))
            if (lib().ketama_status_name(status) or b"") == b"KETAMA_ERR_INVALID_ARGUMENT":
                check(status)
        for i in range(count):
            check(lib().ketama_ring_point(ptr, i, ctypes.byref(point), ctypes.byref(index)))
            out.append((point.value, index.value))
        return out

    def find(self, key):
        """The :class:`Location` of ``key`` (``str`` is hashed as UTF-8)."""
        data = to_bytes(key)
        ref = _lib.ServerRef()
        check(lib().ketama_find_server(self._live(), data, len(data), ctypes.byref(ref)))
        return Location(ref.server_index, self._addresses[ref.server_index], ref.point, ref.point_index)

    def find_avoiding(self, key, down):
        """Like :meth:`find`, skipping servers (indices or addresses) listed in ``down``."""
        indices = [d if isinstance(d, int) else self._index_of(d) for d in down]
        data = to_bytes(key)
        array = (ctypes.c_uint32 * len(indices))(*indices)
        ref = _lib.ServerRef()
        check(
            lib().ketama_find_server_avoiding(
                self._live(), data, len(data), array, len(indices), ctypes.byref(ref)
            )
        )
        return Location(ref.server_index, self._addresses[ref.server_index], ref.point, ref.point_index)

    def _index_of(self, address):
        try:
            return self._addresses.index(address)
        except ValueError:
            raise ValueError(f"{address!r} is not a server of this ring") from None

    def server(self, key):
        """The address of the server for ``key``."""
        return self._addresses[self.server_index(key)]

    def server_index(self, key):
        """The index (input order) of the server for ``key``."""
        if type(key) is not bytes:
            key = to_bytes(key)
        index = _find_server_index(self._live(), key, len(key))
        if index < 0:  # a failed status, negated
            check(-index)
        return index

    def server_indices(self, keys):
        """Server indices for many keys with one native call (same answers as :meth:`server_index`)."""
        if not isinstance(keys, (list, tuple)):
            keys = list(keys)
        try:
            text = "".join(keys)  # all str
        except TypeError:
            text = None
        if text is not None:
            packed = text.encode("utf-8")
            if len(packed) == len(text):  # ASCII: a key's byte length is its length
                return self.server_indices_packed(packed, array.array("I", map(len, keys)))
        else:
            try:
                packed = b"".join(keys)  # all bytes
                return self.server_indices_packed(packed, array.array("I", map(len, keys)))
            except TypeError:
                pass
        encoded = [k if type(k) is bytes else to_bytes(k) for k in keys]
        return self.server_indices_packed(b"".join(encoded), array.array("I", map(len, encoded)))

    def server_indices_packed(self, packed, lengths):
        """Server indices for keys stored back to back in ``packed``, key i being ``lengths[i]`` bytes."""
        count = len(lengths)
        if not (isinstance(lengths, array.array) and lengths.typecode == "I"):
            lengths = array.array("I", lengths)
        out = array.array("I", bytes(4 * count))
        c_lengths = (ctypes.c_uint32 * count).from_buffer(lengths) if count else None
        c_out = (ctypes.c_uint32 * count).from_buffer(out) if count else None
        packed = to_bytes(packed, "packed keys")
        check(lib().ketama_find_servers_packed(self._live(), packed, len(packed), c_lengths, count, c_out))
        return out.tolist()

    def group_keys(self, keys):
        """The multi-GET plan: ``[(address, [key, ...]), ...]``, one entry per
        server holding any of ``keys``, servers in ring order and keys in
        input order, so a client sends one multi-get per server."""
        keys = list(keys)
        encoded = [k if type(k) is bytes else to_bytes(k) for k in keys]
        packed = b"".join(encoded)
        count = len(encoded)
        lengths = (ctypes.c_uint32 * count)(*map(len, encoded)) if count else None
        handle = ctypes.c_void_p()
        check(lib().ketama_group_keys(self._live(), packed, len(packed), lengths, count, ctypes.byref(handle)))
        try:
            plan = []
            server = ctypes.c_uint32()
            indices = ctypes.POINTER(ctypes.c_uint32)()
            n = ctypes.c_size_t()
            for g in range(lib().ketama_key_groups_count(handle)):
                check(lib().ketama_key_groups_get(handle, g, ctypes.byref(server), ctypes.byref(indices), ctypes.byref(n)))
                plan.append((self._addresses[server.value], [keys[indices[i]] for i in range(n.value)]))
            return plan
        finally:
            lib().ketama_key_groups_free(handle)

    def servers_for(self, keys):
        """Server addresses for many keys (a list in key order; a dict for a dict of keys)."""
        if isinstance(keys, dict):
            names = list(keys)
            indices = self.server_indices([keys[n] for n in names])
            return {n: self._addresses[i] for n, i in zip(names, indices)}
        addresses = self._addresses
        return [addresses[i] for i in self.server_indices(keys)]

    def __repr__(self):
        state = "closed" if self.closed else f"{len(self._addresses)} servers"
        return f"<ketama.Ring {self.flavour}, {state}>"


class Continuum:
    """Drop-in for ``python_ketama``'s ``ketama.Continuum(filename)``.

    Reads the file exactly as the original libketama does; lookups take
    ``str`` (UTF-8) or ``bytes`` keys. Failures raise :class:`KetamaError`
    with the library's message; a filename over 255 bytes raises ValueError.
    """

    def __init__(self, filename):
        name = os.fsencode(filename)
        if len(name) > 255:
            raise ValueError("filename must be at most 255 bytes")
        self._filename = filename
        self._ring = Ring.from_file(name, "libketama", None, "libketama")

    @property
    def filename(self):
        """The file the continuum was read from."""
        return self._filename

    def get_server(self, key):
        """``(point, ip)``: the continuum point ``key`` maps to and its server."""
        at = self._ring.find(key)
        return (at.point, at.address)

    def get_points(self):
        """Every ``(point, ip)`` in continuum order."""
        addresses = self._ring._addresses
        return [(point, addresses[index]) for point, index in self._ring.points()]

    def close(self):
        """Releases the continuum now (it is also released when collected)."""
        self._ring.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        filename = self._filename
        if isinstance(filename, bytes):
            filename = filename.decode("utf-8", "replace")
        return f"<ketama.Continuum from '{filename}'>"
