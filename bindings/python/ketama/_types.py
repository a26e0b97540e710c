"""The exception and the result tuples of the ketama package; the native
module ``ketama._ketama`` raises and returns these."""

from typing import NamedTuple


class KetamaError(Exception):
    """An error reported by the library, with its message.

    ``status`` is the library's status code (``ketama_status`` in C; 0 for
    errors raised by the ``python_ketama``-compatible API itself) and
    ``status_name`` its name (``"KETAMA_ERR_PARSE"``, ...). A set value that
    does not decode also carries ``kind`` (``"BadOp"``, ...), ``offset`` (the
    byte offset) and ``record`` (the failing record's index).
    """

    def __init__(self, message: str, status: int = 0, status_name: str = "") -> None:
        super().__init__(message)
        self.status = status
        self.status_name = status_name


KetamaError.__module__ = "ketama"  # shown as ketama.KetamaError, as in the original module


class Location(NamedTuple):
    """Where a key landed: server index (input order), address, continuum point and its index."""

    server_index: int
    address: str
    point: int
    point_index: int


class Stats(NamedTuple):
    """Counters of a decoded set; redundant = records - members (what compaction deletes)."""

    members: int
    records: int
    removals: int
    redundant: int
    value_len: int
    encoding: str


class Compaction(NamedTuple):
    """A compaction write: store value under CAS cas with exptime (when exptime_known)."""

    value: bytes
    cas: int
    exptime: int
    exptime_known: bool


for _type in (Location, Stats, Compaction):
    _type.__module__ = "ketama"
del _type
