"""Loads libketama.so with ctypes and declares the C functions the package calls.

The library is searched, in order (the same order as the PHP binding):

1. the ``KETAMA_LIBRARY`` environment variable (the .so file or its directory);
2. the ketama repository this package sits in, when it is run from a checkout:
   ``target/release/libketama.so``, then ``target/debug/libketama.so``;
3. the system library path (``libketama.so.1``, as the dynamic loader finds it).

When none loads, :class:`KetamaError` lists every place it looked.
"""

import ctypes
import os
import threading

c_size_t = ctypes.c_size_t
c_u32 = ctypes.c_uint32
c_u64 = ctypes.c_uint64
c_i64 = ctypes.c_int64
c_char_p = ctypes.c_char_p
c_void_p = ctypes.c_void_p
c_bool = ctypes.c_bool
u8_p = ctypes.POINTER(ctypes.c_uint8)


class KetamaError(Exception):
    """An error reported by libketama, with the library's message.

    ``status`` is the ``ketama_status`` code (0 for errors raised by the
    ``python_ketama``-compatible API itself) and ``status_name`` its name
    (``"KETAMA_ERR_PARSE"``, ...).
    """

    def __init__(self, message, status=0, status_name=""):
        super().__init__(message)
        self.status = status
        self.status_name = status_name


class ServerRef(ctypes.Structure):
    """``ketama_server_ref``: where a key landed."""

    _c_struct_ = "ketama_server_ref"
    _fields_ = [
        ("server_index", c_u32),
        ("point", c_u32),
        ("point_index", c_size_t),
        ("address", c_char_p),
        ("address_len", c_size_t),
    ]


class ServerSpec(ctypes.Structure):
    """``ketama_server``: one server of an in-memory list."""

    _c_struct_ = "ketama_server"
    _fields_ = [
        ("address", c_char_p),
        ("address_len", c_size_t),
        ("weight", c_u64),
        ("name", c_char_p),
        ("name_len", c_size_t),
    ]


class ServerInfo(ctypes.Structure):
    """``ketama_server_info``: one server of a ring."""

    _c_struct_ = "ketama_server_info"
    _fields_ = [
        ("address", c_void_p),
        ("address_len", c_size_t),
        ("name", c_void_p),
        ("name_len", c_size_t),
        ("weight", c_u64),
        ("point_count", c_u32),
    ]


class SetBuffer(ctypes.Structure):
    """``ketama_set_buffer``: bytes owned by the library."""

    _c_struct_ = "ketama_set_buffer"
    _fields_ = [("data", u8_p), ("len", c_size_t)]


class SetError(ctypes.Structure):
    """``ketama_set_error``: where a decode failed."""

    _c_struct_ = "ketama_set_error"
    _fields_ = [("kind", c_u32), ("offset", c_size_t), ("record", c_size_t)]


class SetStats(ctypes.Structure):
    """``ketama_set_stats``: counters of a decoded set."""

    _c_struct_ = "ketama_set_stats"
    _fields_ = [
        ("members", c_size_t),
        ("records", c_size_t),
        ("removals", c_size_t),
        ("redundant", c_size_t),
        ("value_len", c_size_t),
        ("encoding", c_u32),
    ]


class MemberRef(ctypes.Structure):
    """``ketama_set_member_ref``: a member passed in."""

    _c_struct_ = "ketama_set_member_ref"
    _fields_ = [("data", c_char_p), ("len", c_size_t)]


class SetPolicy(ctypes.Structure):
    """``ketama_set_policy``: when a read asks for compaction."""

    _c_struct_ = "ketama_set_policy"
    _fields_ = [("threshold", c_size_t), ("soft_limit", c_size_t), ("ratio", c_bool)]


class SetCompaction(ctypes.Structure):
    """``ketama_set_compaction``: the compaction write a read asks for."""

    _c_struct_ = "ketama_set_compaction"
    _fields_ = [
        ("needed", c_bool),
        ("value", SetBuffer),
        ("cas", c_u64),
        ("exptime", c_u32),
        ("exptime_known", c_bool),
    ]


_P = ctypes.POINTER
_STATUS = ctypes.c_int

# name -> (restype, argtypes); tests/bindings_python.rs checks each against
# the prototype in include/ketama.h, and each Structure's fields against the
# struct its _c_struct_ names.
_SIGNATURES = {
    "ketama_error": (c_char_p, []),
    "ketama_status_name": (c_char_p, [c_u32]),
    "ketama_version": (c_char_p, []),
    "ketama_flavour_from_name": (_STATUS, [c_char_p, _P(c_u32)]),
    "ketama_flavour_name": (c_char_p, [c_u32]),
    "ketama_hash_from_name": (_STATUS, [c_u32, c_char_p, _P(c_u32)]),
    "ketama_parse_mode_from_name": (_STATUS, [c_char_p, _P(c_u32)]),
    "ketama_hash_name": (c_char_p, [c_u32]),
    "ketama_hash_from_canonical_name": (_STATUS, [c_char_p, _P(c_u32)]),
    "ketama_status_list": (c_size_t, [_P(c_u32), c_size_t]),
    "ketama_set_encoding_from_name": (_STATUS, [c_char_p, _P(c_u32)]),
    "ketama_set_encoding_name": (c_char_p, [c_u32]),
    "ketama_set_encoding_list": (c_size_t, [_P(c_u32), c_size_t]),
    "ketama_set_op_from_name": (_STATUS, [c_char_p, _P(c_u32)]),
    "ketama_set_reply_from_name": (_STATUS, [c_char_p, _P(c_u32)]),
    "ketama_set_side_from_name": (_STATUS, [c_char_p, _P(c_u32)]),
    "ketama_hash_bytes": (_STATUS, [c_u32, c_char_p, c_size_t, _P(c_u32)]),
    "ketama_ring_new": (_STATUS, [_P(ServerSpec), c_size_t, c_u32, c_u32, _P(c_void_p)]),
    "ketama_ring_new_from_file": (_STATUS, [c_char_p, c_u32, c_u32, c_u32, _P(c_void_p)]),
    "ketama_ring_new_with_options": (
        _STATUS,
        [_P(ServerSpec), c_size_t, c_u32, c_u32, c_char_p, _P(c_void_p)],
    ),
    "ketama_ring_new_from_file_with_options": (
        _STATUS,
        [c_char_p, c_u32, c_u32, c_u32, c_char_p, _P(c_void_p)],
    ),
    "ketama_ring_free": (None, [c_void_p]),
    "ketama_ring_server_count": (c_size_t, [c_void_p]),
    "ketama_ring_point_count": (c_size_t, [c_void_p]),
    "ketama_ring_server": (_STATUS, [c_void_p, c_size_t, _P(ServerInfo)]),
    "ketama_ring_point": (_STATUS, [c_void_p, c_size_t, _P(c_u32), _P(c_u32)]),
    "ketama_find_server": (_STATUS, [c_void_p, c_char_p, c_size_t, _P(ServerRef)]),
    "ketama_find_server_index": (c_i64, [c_void_p, c_char_p, c_size_t]),
    "ketama_find_server_avoiding": (
        _STATUS,
        [c_void_p, c_char_p, c_size_t, _P(c_u32), c_size_t, _P(ServerRef)],
    ),
    "ketama_find_servers_packed": (
        _STATUS,
        [c_void_p, c_char_p, c_size_t, _P(c_u32), c_size_t, _P(c_u32)],
    ),
    "ketama_group_keys": (
        _STATUS,
        [c_void_p, c_char_p, c_size_t, _P(c_u32), c_size_t, _P(c_void_p)],
    ),
    "ketama_key_groups_count": (c_size_t, [c_void_p]),
    "ketama_key_groups_get": (
        _STATUS,
        [c_void_p, c_size_t, _P(c_u32), _P(_P(c_u32)), _P(c_size_t)],
    ),
    "ketama_key_groups_free": (None, [c_void_p]),
    "ketama_set_decode": (
        _STATUS,
        [c_char_p, c_size_t, c_u32, c_size_t, _P(c_void_p), _P(SetError)],
    ),
    "ketama_set_free": (None, [c_void_p]),
    "ketama_set_is_sealed": (c_bool, [c_void_p]),
    "ketama_set_paired_key": (_STATUS, [c_char_p, c_size_t, c_u32, _P(SetBuffer)]),
    "ketama_set_encode_paired": (
        _STATUS,
        [_P(MemberRef), c_size_t, c_u32, c_size_t, _P(SetBuffer)],
    ),
    "ketama_set_decode_paired": (
        _STATUS,
        [c_char_p, c_size_t, c_char_p, c_size_t, c_size_t, _P(c_void_p)],
    ),
    "ketama_set_buffer_free": (None, [SetBuffer]),
    "ketama_set_get_stats": (_STATUS, [c_void_p, _P(SetStats)]),
    "ketama_set_card": (c_size_t, [c_void_p]),
    "ketama_set_member": (_STATUS, [c_void_p, c_size_t, _P(u8_p), _P(c_size_t)]),
    "ketama_set_contains": (_STATUS, [c_void_p, c_char_p, c_size_t, _P(c_bool)]),
    "ketama_set_encode": (
        _STATUS,
        [c_u32, c_u32, _P(MemberRef), c_size_t, c_size_t, _P(SetBuffer)],
    ),
    "ketama_set_compacted": (_STATUS, [c_void_p, c_u32, _P(SetBuffer)]),
    "ketama_set_should_compact": (_STATUS, [c_void_p, _P(SetPolicy), c_bool, _P(c_bool)]),
    "ketama_set_policy_default": (_STATUS, [_P(SetPolicy)]),
    "ketama_set_plan_read": (
        _STATUS,
        [
            c_char_p, c_size_t, c_u32, c_u64, c_i64, c_bool, _P(SetPolicy), c_bool,
            _P(c_void_p), _P(SetCompaction),
        ],
    ),
    "ketama_set_union": (_STATUS, [_P(c_void_p), c_size_t, _P(c_void_p)]),
    "ketama_set_inter": (_STATUS, [_P(c_void_p), c_size_t, _P(c_void_p)]),
    "ketama_set_diff": (_STATUS, [_P(c_void_p), c_size_t, _P(c_void_p)]),
    "ketama_set_intercard": (_STATUS, [_P(c_void_p), c_size_t, c_i64, _P(c_size_t)]),
    "ketama_set_writer_new": (_STATUS, [c_u32, c_u32, _P(c_void_p), _P(c_u32)]),
    "ketama_set_writer_step": (_STATUS, [c_void_p, c_u32, _P(c_u32)]),
    "ketama_set_writer_free": (None, [c_void_p]),
}

_lock = threading.Lock()
_library = None
_path = ""


def _candidates():
    """Where to look, in order: (label, file or soname, or None when unset)."""
    env = os.environ.get("KETAMA_LIBRARY") or None
    if env is not None and os.path.isdir(env):
        env = os.path.join(env, "libketama.so")
    found = [("KETAMA_LIBRARY", env)]
    root = _repository_root()
    if root is None:
        found.append(("ketama repository build", None))
    else:
        found.append(("repository build (release)", os.path.join(root, "target/release/libketama.so")))
        found.append(("repository build (debug)", os.path.join(root, "target/debug/libketama.so")))
    found.append(("system library path", "libketama.so.1"))
    return found


def _repository_root():
    """The ketama checkout holding this package (bindings/python/ketama), if any."""
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.normpath(os.path.join(here, "..", "..", ".."))
    if os.path.isfile(os.path.join(root, "Cargo.toml")) and os.path.isdir(os.path.join(root, "bindings")):
        return root
    return None


def _load():
    tried = []
    for label, library in _candidates():
        if library is None:
            reason = "not set" if label == "KETAMA_LIBRARY" else "this package is not inside a ketama checkout"
            tried.append(f"{label}: {reason}")
            continue
        if "/" in library and not os.path.isfile(library):
            tried.append(f"{label}: {library} does not exist")
            continue
        try:
            lib = ctypes.CDLL(library)
        except OSError as e:
            tried.append(f"{label}: {library}: {e}")
            continue
        missing = [name for name in _SIGNATURES if not hasattr(lib, name)]
        if missing:
            tried.append(f"{label}: {library}: too old, lacks {', '.join(missing[:3])}")
            continue
        for name, (restype, argtypes) in _SIGNATURES.items():
            function = getattr(lib, name)
            function.restype = restype
            function.argtypes = argtypes
        return lib, library
    raise KetamaError(
        "libketama.so not found or not usable; looked in:\n  "
        + "\n  ".join(tried)
        + "\nSet KETAMA_LIBRARY to the library file, install the libketama1 package, or run `cargo build` in the ketama repository."
    )


def lib():
    """The loaded library (loading it on first use)."""
    global _library, _path
    if _library is None:
        with _lock:
            if _library is None:
                _library, _path = _load()
    return _library


def library_path():
    """The file (or soname) the library was loaded from."""
    lib()
    return _path


def last_error():
    """The library's last error message on this thread (``ketama_error()``)."""
    return (lib().ketama_error() or b"").decode("utf-8", "replace")


def check(status):
    """Raises :class:`KetamaError` with the library's message for a failed call."""
    if status != 0:
        name = (lib().ketama_status_name(status) or b"").decode()
        raise KetamaError(last_error(), status, name)


_names = {}


def names(kind):
    """``{name: id}`` of a C enum the library names, read from it once:
    ``ketama_<kind>_list`` gives the ids, ``ketama_<kind>_name`` their names
    (``names("status")``, ``names("set_encoding")``)."""
    table = _names.get(kind)
    if table is None:
        library = lib()
        list_ids = getattr(library, f"ketama_{kind}_list")
        name_of = getattr(library, f"ketama_{kind}_name")
        count = list_ids(None, 0)
        ids = (c_u32 * count)()
        list_ids(ids, count)
        table = _names[kind] = {name_of(i).decode(): i for i in ids}
    return table


def enum_id(kind, name, what):
    """The id of ``name`` in the C enum ``ketama_<kind>``, as ``ketama_<kind>_from_name``
    resolves it (any case, ``-`` and ``_`` alike); ValueError with the library's message,
    which lists the known names, otherwise."""
    if not isinstance(name, (str, bytes)):
        raise ValueError(f"{what} must be a name, not {name!r}")
    out = c_u32()
    try:
        check(getattr(lib(), f"ketama_{kind}_from_name")(to_bytes(name, what), ctypes.byref(out)))
    except KetamaError as error:
        raise ValueError(str(error)) from None
    return out.value


def to_bytes(value, what="key"):
    """A key or member as bytes: ``bytes``-like as is, ``str`` as UTF-8."""
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode("utf-8")
    if isinstance(value, (bytearray, memoryview)):
        return bytes(value)
    raise TypeError(f"{what} must be str or bytes, not {type(value).__name__}")


def take_buffer(buffer):
    """Copies a ``ketama_set_buffer`` into bytes and releases it."""
    try:
        return ctypes.string_at(buffer.data, buffer.len) if buffer.len else b""
    finally:
        lib().ketama_set_buffer_free(buffer)
