"""ketama: consistent hashing and the memcached set codec over libketama.so.

Drop-in for the original ``python_ketama`` module::

    import ketama
    c = ketama.Continuum("/etc/memcached.servers")
    point, ip = c.get_server("user:42")
    ketama.hashi("test")            # 3446378249

Modern API: :class:`Ring` (any flavour and key hash, batch lookups),
:class:`Set` / :class:`SetWriter` (the set codec) and
``ketama.pymemcache.KetamaHasher`` for pymemcache's ``HashClient``.
Errors are :class:`KetamaError` carrying the library's message.
"""

from ._lib import KetamaError, library_path

KetamaError.__module__ = "ketama"  # shown as ketama.KetamaError, as in the original module
from .ring import Continuum, Location, Ring, flavour_id, flavour_name, hash_id, hashi
from .set import Compaction, Set, SetWriter, Stats

__all__ = [
    "Compaction",
    "Continuum",
    "KetamaError",
    "Location",
    "Ring",
    "Set",
    "SetWriter",
    "Stats",
    "flavour_id",
    "flavour_name",
    "hash_id",
    "hashi",
    "library_path",
]
