"""ketama: consistent hashing and the memcached set codec, as a native extension.

Drop-in for the original ``python_ketama`` module::

    import ketama
    c = ketama.Continuum("/etc/memcached.servers")
    point, ip = c.get_server("user:42")
    ketama.hashi("test")            # 3446378249

Modern API: :class:`Ring` (any flavour and key hash, batch lookups,
failover, the multi-GET planner), :class:`Set` / :class:`SetWriter` (the
set codec) and ``ketama.pymemcache.KetamaHasher`` for pymemcache's
``HashClient``. Errors are :class:`KetamaError` carrying the library's
message and status. The native code is the extension module
``ketama._ketama`` (the ketama-core crate compiled in): nothing else to
install or find at run time.
"""

import os as _os


def _checkout_build():
    """The native module as ``cargo build`` leaves it in the ketama checkout
    this package sits in (``target/release/lib_ketama.so``, then
    ``target/debug``), for ``PYTHONPATH=bindings/python`` without installing."""
    import importlib.machinery
    import importlib.util
    import sys

    here = _os.path.dirname(_os.path.abspath(__file__))
    root = _os.path.normpath(_os.path.join(here, "..", "..", ".."))
    tried = []
    if _os.path.isfile(_os.path.join(here, "..", "Cargo.toml")) and _os.path.isfile(_os.path.join(root, "Cargo.toml")):
        for profile in ("release", "debug"):
            path = _os.path.join(root, "target", profile, "lib_ketama.so")
            if not _os.path.isfile(path):
                tried.append(f"{path} does not exist")
                continue
            loader = importlib.machinery.ExtensionFileLoader(__name__ + "._ketama", path)
            spec = importlib.util.spec_from_file_location(loader.name, path, loader=loader)
            module = importlib.util.module_from_spec(spec)
            sys.modules[loader.name] = module
            loader.exec_module(module)
            return module
    else:
        tried.append(f"{here} is not inside a ketama checkout")
    raise ImportError(
        "the native module ketama._ketama is not built: install the package "
        "(pip install ./bindings/python builds it with the Rust toolchain), or "
        "run `cargo build --release` in the ketama checkout; looked for:\n  " + "\n  ".join(tried)
    )


try:
    from . import _ketama
except ImportError:
    _ketama = _checkout_build()

from ._ketama import (
    Continuum,
    Migration,
    MigrationOp,
    Ring,
    Set,
    SetWriter,
    __version__,
    canonical_hash_id,
    flavour_id,
    flavour_name,
    hash_id,
    hashi,
    names,
    parse_mode_id,
    ring_cache_configure,
    ring_cache_stats,
)
from ._types import Compaction, KetamaError, Location, Stats


def library_path() -> str:
    """The file the native code was loaded from: the extension module itself
    (there is no separate libketama.so)."""
    return _ketama.__file__


__all__ = [
    "Compaction",
    "Continuum",
    "KetamaError",
    "Location",
    "Migration",
    "MigrationOp",
    "Ring",
    "Set",
    "SetWriter",
    "Stats",
    "__version__",
    "canonical_hash_id",
    "flavour_id",
    "flavour_name",
    "hash_id",
    "hashi",
    "library_path",
    "names",
    "parse_mode_id",
    "ring_cache_configure",
    "ring_cache_stats",
]
