"""The set codec: sets kept in memcached values (decode, encode, compaction, algebra, writes)."""

import ctypes
from collections import namedtuple

from . import _enums, _lib
from ._lib import KetamaError, check, lib, take_buffer, to_bytes
from .ring import _Handle


# The writer's actions keep their C constants' spelling ("done_created"): whether an
# action is an outcome is in the constant's name only (KETAMA_SET_DONE_*), so they come
# from ketama/_enums.py, generated from include/ketama.h. Every other name of the set
# codec (encodings, ops, replies, sides) is resolved by the library.
ACTIONS = {
    value: constant[len(next(p for p in ("KETAMA_SET_DO_", "KETAMA_SET_") if constant.startswith(p))):].lower()
    for constant, value in _enums.KETAMA_SET_ACTION.items()
}

Stats = namedtuple("Stats", "members records removals redundant value_len encoding")
Stats.__doc__ = "Counters of a decoded set; redundant = records - members (what compaction deletes)."
Compaction = namedtuple("Compaction", "value cas exptime exptime_known")
Compaction.__doc__ = "A compaction write: store value under CAS cas with exptime (when exptime_known)."


def _encoding(name):
    return name if isinstance(name, int) else _lib.enum_id("set_encoding", name, "encoding")


def _policy(**fields):
    """The library's default compaction policy with ``fields`` (threshold,
    soft_limit, ratio) changed."""
    policy = _lib.SetPolicy()
    check(lib().ketama_set_policy_default(ctypes.byref(policy)))
    for name, value in fields.items():
        if name not in ("threshold", "soft_limit", "ratio"):
            raise TypeError("unknown compaction policy field %r (threshold, soft_limit, ratio)" % name)
        setattr(policy, name, value)
    return policy


class Set(_Handle):
    """A decoded, immutable set: members in bytewise order, ``in``, ``len``, stats."""

    _free = "ketama_set_free"

    @classmethod
    def decode(cls, value, encoding="auto", max_member_len=0):
        """Decodes a memcached value; a malformed one raises :class:`KetamaError`
        (``kind``, ``offset``, ``record`` attributes say where)."""
        data = to_bytes(value, "value")
        out = ctypes.c_void_p()
        error = _lib.SetError()
        status = lib().ketama_set_decode(
            data, len(data), _encoding(encoding), max_member_len, ctypes.byref(out), ctypes.byref(error)
        )
        try:
            check(status)
        except KetamaError as e:
            e.offset, e.record = error.offset, error.record
            raise
        return cls(out.value)

    @classmethod
    def decode_paired(cls, adds, removes, max_member_len=0):
        """Reads a paired list (``follow-X`` / ``unfollow-X`` values; ``b""``
        for a missing key), counted: members occurring more often in
        ``adds`` than in ``removes``."""
        adds, removes = to_bytes(adds, "adds"), to_bytes(removes, "removes")
        out = ctypes.c_void_p()
        check(
            lib().ketama_set_decode_paired(
                adds, len(adds), removes, len(removes), max_member_len, ctypes.byref(out)
            )
        )
        return cls(out.value)

    @staticmethod
    def encode_paired(members, encoding="t1", max_member_len=0):
        """The APPEND payload recording members in one list of a pair."""
        members = [to_bytes(m, "member") for m in members]
        refs = (_lib.MemberRef * len(members))()
        for ref, member in zip(refs, members):
            ref.data, ref.len = member, len(member)
        buffer = _lib.SetBuffer()
        check(
            lib().ketama_set_encode_paired(
                refs, len(members), _encoding(encoding), max_member_len, ctypes.byref(buffer)
            )
        )
        return take_buffer(buffer)

    @staticmethod
    def paired_key(base, side="add"):
        """The key of one list of a pair: ``follow-<base>`` or ``unfollow-<base>``."""
        side = _lib.enum_id("set_side", side, "side")
        data = to_bytes(base, "base")
        buffer = _lib.SetBuffer()
        check(lib().ketama_set_paired_key(data, len(data), side, ctypes.byref(buffer)))
        return take_buffer(buffer)

    @classmethod
    def encode(cls, members, op="add", encoding="t1", max_member_len=0):
        """One APPEND/ADD payload: an ``op`` record for each member."""
        members = [to_bytes(m, "member") for m in members]
        refs = (_lib.MemberRef * len(members))()
        for ref, member in zip(refs, members):
            ref.data, ref.len = member, len(member)
        buffer = _lib.SetBuffer()
        check(
            lib().ketama_set_encode(
                _lib.enum_id("set_op", op, "op"), _encoding(encoding), refs, len(members), max_member_len, ctypes.byref(buffer)
            )
        )
        return take_buffer(buffer)

    @classmethod
    def plan_read(cls, value, cas, remaining_ttl=None, encoding="auto", force=False, **policy):
        """Decodes a value read with its CAS and says whether to compact it:
        ``(Set, Compaction or None)``. ``remaining_ttl`` is what ``mg KEY t``
        returned (-1: never expires; None: unknown)."""
        data = to_bytes(value, "value")
        out = ctypes.c_void_p()
        plan = _lib.SetCompaction()
        check(
            lib().ketama_set_plan_read(
                data, len(data), _encoding(encoding), cas,
                -1 if remaining_ttl is None else remaining_ttl, remaining_ttl is not None,
                ctypes.byref(_policy(**policy)), force, ctypes.byref(out), ctypes.byref(plan),
            )
        )
        result = cls(out.value)
        if not plan.needed:
            return result, None
        value = take_buffer(plan.value)
        return result, Compaction(value, plan.cas, plan.exptime, plan.exptime_known)

    def _combine(self, function, others):
        sets = [self, *others]
        array = (ctypes.c_void_p * len(sets))(*[None if s is None else s._live() for s in sets])
        out = ctypes.c_void_p()
        check(getattr(lib(), function)(array, len(sets), ctypes.byref(out)))
        return Set(out.value)

    def union(self, *others):
        """SUNION: a new set (``None`` stands for a missing key)."""
        return self._combine("ketama_set_union", others)

    def intersection(self, *others):
        """SINTER: a new set."""
        return self._combine("ketama_set_inter", others)

    def difference(self, *others):
        """SDIFF: members of this set in none of the others."""
        return self._combine("ketama_set_diff", others)

    def intercard(self, *others, limit=0):
        """SINTERCARD: size of the intersection (stopping at ``limit`` when > 0)."""
        sets = [self, *others]
        array = (ctypes.c_void_p * len(sets))(*[None if s is None else s._live() for s in sets])
        out = ctypes.c_size_t()
        check(lib().ketama_set_intercard(array, len(sets), limit, ctypes.byref(out)))
        return out.value

    def __len__(self):
        return lib().ketama_set_card(self._live())

    def members(self):
        """The members as bytes, in bytewise order."""
        ptr = self._live()
        data, length = _lib.u8_p(), ctypes.c_size_t()
        out = []
        for i in range(lib().ketama_set_card(ptr)):
            check(lib().ketama_set_member(ptr, i, ctypes.byref(data), ctypes.byref(length)))
            out.append(ctypes.string_at(data, length.value))
        return out

    def __iter__(self):
        return iter(self.members())

    def __contains__(self, member):
        data = to_bytes(member, "member")
        out = ctypes.c_bool()
        check(lib().ketama_set_contains(self._live(), data, len(data), ctypes.byref(out)))
        return out.value

    def stats(self):
        """:class:`Stats` of the decoded value (encoding by name)."""
        stats = _lib.SetStats()
        check(lib().ketama_set_get_stats(self._live(), ctypes.byref(stats)))
        return Stats(
            stats.members, stats.records, stats.removals, stats.redundant, stats.value_len,
            (lib().ketama_set_encoding_name(stats.encoding) or str(stats.encoding).encode()).decode(),
        )

    @property
    def sealed(self):
        """Whether the value started with the ``^`` seal (a retired list)."""
        return lib().ketama_set_is_sealed(self._live())

    def should_compact(self, force=False, **policy):
        """Whether the policy (threshold, soft_limit, ratio) asks for compaction."""
        out = ctypes.c_bool()
        check(lib().ketama_set_should_compact(self._live(), ctypes.byref(_policy(**policy)), force, ctypes.byref(out)))
        return out.value

    def compacted(self, encoding="t1"):
        """The canonical value: one add record per member (also the value to store)."""
        buffer = _lib.SetBuffer()
        check(lib().ketama_set_compacted(self._live(), _encoding(encoding), ctypes.byref(buffer)))
        return take_buffer(buffer)

    def __repr__(self):
        return "<ketama.Set closed>" if self.closed else f"<ketama.Set {len(self)} members>"


class SetWriter(_Handle):
    """The write recipe for an add/remove payload: ``action`` says what to send
    (``"append"``, ``"add"``, ``"probe"``) until it is ``"done_..."``; feed each
    server reply (``"stored"``, ``"not_stored"``, ``"exists"``, ``"not_found"``,
    ``"too_large"``) to :meth:`step`."""

    _free = "ketama_set_writer_free"

    def __init__(self, op="add", max_retries=0):
        out, action = ctypes.c_void_p(), ctypes.c_uint32()
        check(lib().ketama_set_writer_new(_lib.enum_id("set_op", op, "op"), max_retries, ctypes.byref(out), ctypes.byref(action)))
        _Handle.__init__(self, out.value)
        self.action = ACTIONS[action.value]

    @property
    def done(self):
        """Whether the write is finished."""
        return self.action.startswith("done")

    def step(self, reply):
        """Advances with the server's reply; returns (and stores) the next action."""
        reply = _lib.enum_id("set_reply", reply, "reply")
        action = ctypes.c_uint32()
        check(lib().ketama_set_writer_step(self._live(), reply, ctypes.byref(action)))
        self.action = ACTIONS[action.value]
        return self.action
