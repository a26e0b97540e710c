"""pymemcache adapters: a hasher for ``HashClient`` placing keys by any ketama
flavour, and :class:`MigratingClient`, pymemcache across a migration between two rings.

    from pymemcache.client.hash import HashClient
    from ketama.pymemcache import KetamaHasher

    client = HashClient(servers, hasher=KetamaHasher.flavour("libmemcached"))

``HashClient`` builds its hasher with no arguments and names nodes
``HOST:PORT``; :meth:`KetamaHasher.flavour` returns a class bound to a
flavour (and key hash, and per-node weights). The ring is rebuilt when a node
is added or removed, in the order nodes were added.
"""

import threading
from typing import Any, Callable, ClassVar, Dict, Iterable, List, Optional, Sequence, Tuple, Type, Union

from ._ketama import Ring, flavour_name

try:
    from pymemcache.exceptions import MemcacheError, MemcacheIllegalInputError
except ImportError:  # the hasher needs no pymemcache; MigratingClient does

    class MemcacheError(Exception):  # type: ignore[no-redef]
        """Stands for pymemcache's base error when pymemcache is not installed."""

    class MemcacheIllegalInputError(MemcacheError):  # type: ignore[no-redef]
        """Stands for pymemcache's error for a bad key or value."""


class KetamaHasher:
    """pymemcache hasher protocol (``add_node``, ``remove_node``, ``get_node``) over a :class:`Ring`."""

    #: Flavour name or alias; see :meth:`flavour`.
    FLAVOUR: ClassVar[str] = "libketama"
    #: Key hash as the flavour's peer spells it; None for the flavour's default.
    HASH: ClassVar[Optional[str]] = None
    #: Optional weights by node name (``"10.0.0.1:11211"``).
    WEIGHTS: ClassVar[Dict[str, int]] = {}

    @classmethod
    def flavour(
        cls,
        flavour: Union[str, int],
        hash: Optional[str] = None,
        weights: Optional[Dict[str, int]] = None,
    ) -> "Type[KetamaHasher]":
        """A subclass bound to ``flavour`` (and ``hash``, ``weights``), for ``HashClient(hasher=...)``."""
        name = flavour_name(flavour)  # fails now, naming the known flavours, for a bad name
        return type(
            f"KetamaHasher_{name.replace('-', '_')}",
            (cls,),
            {"FLAVOUR": name, "HASH": hash, "WEIGHTS": dict(weights or {})},
        )

    def __init__(self) -> None:
        self._nodes: List[str] = []
        # (nodes, ring) replaced as one, so get_node never sees a half-built state;
        # a replaced ring is freed when the last lookup using it lets go of it.
        self._state: Tuple[Tuple[str, ...], Optional[Ring]] = ((), None)
        self._lock = threading.Lock()

    def add_node(self, node: str) -> None:
        """Adds a node (``HOST:PORT``) and rebuilds the ring."""
        with self._lock:
            if node not in self._nodes:
                self._nodes.append(node)
                self._rebuild()

    def remove_node(self, node: str) -> None:
        """Removes a node and rebuilds the ring."""
        with self._lock:
            if node in self._nodes:
                self._nodes.remove(node)
                self._rebuild()

    def _rebuild(self) -> None:
        nodes = tuple(self._nodes)
        ring = None
        if nodes:
            ring = Ring([(node, self.WEIGHTS.get(node)) for node in nodes], self.FLAVOUR, self.HASH)
        self._state = (nodes, ring)

    def get_node(self, key: Union[str, bytes]) -> Optional[str]:
        """The node for ``key``, or None when there is none."""
        nodes, ring = self._state
        if ring is None:
            return None
        return nodes[ring.server_index(key)]


class MigratingClient:
    """pymemcache's ``get``, ``set``, ``add``, ``delete``, ``get_many`` and
    ``set_many`` across a migration from the ring of ``old_servers`` to the
    ring of ``new_servers`` (``"HOST:PORT"`` strings)::

        from ketama.pymemcache import MigratingClient

        client = MigratingClient(old_servers, new_servers, mode="warmup",
                                 options="interval=60s,warmup=1h")

    Every decision is the library's (:class:`ketama.Migration`): which
    server to ask, in which order, with which command, and what the answer
    is. This class only sends each command on a ``pymemcache`` ``Client``
    of that server (one per address, made with ``client_kwargs``) and feeds
    back the reply. ``from_flavour``, ``to_flavour`` and ``mode`` left as
    None are the library's defaults (libketama, warm-up); ``start_ms``,
    ``options`` and ``settings`` are :class:`ketama.Migration`'s. A server
    that fails makes the operation fail: ``MigrationError`` is raised, as
    pymemcache raises for a failed command. Values are stored as pymemcache
    stores them without a serde (bytes; str and int encoded).
    """

    def __init__(
        self,
        old_servers: Sequence[str],
        new_servers: Sequence[str],
        from_flavour: Union[str, int, None] = None,
        to_flavour: Union[str, int, None] = None,
        mode: Optional[str] = None,
        start_ms: Optional[int] = None,
        options: Optional[str] = None,
        client_class: Optional[Callable[..., Any]] = None,
        client_kwargs: Optional[Dict[str, Any]] = None,
        **settings: Union[str, int],
    ) -> None:
        from ._ketama import Migration

        self.migration = Migration(
            Ring(list(old_servers), from_flavour),
            Ring(list(new_servers), to_flavour),
            mode,
            start_ms,
            options,
            **settings,
        )
        if client_class is None:
            from pymemcache.client.base import Client as client_class
        kwargs = dict(client_kwargs or {})
        self._clients = {
            address: client_class(address, **kwargs) for address in dict.fromkeys([*old_servers, *new_servers])
        }

    def _send(self, client: Any, command: str, key: Any, value: Any, cas: int, expire: int, lease: bytes) -> Tuple:
        """Sends one command; returns (reply, value, cas) as the library names replies."""
        if command in ("get", "gets"):
            found, unique = client.gets(key) if command == "gets" else (client.get(key), 0)
            if found is None:
                return "miss", None, 0
            return "hit", found, int(unique or 0)
        if command == "delete":
            return ("deleted" if client.delete(key, noreply=False) else "not-found"), None, 0
        if command in ("cas-copy", "cas-value"):
            answer = client.cas(key, value, cas, expire=expire, noreply=False)
            return {True: "stored", False: "exists", None: "not-found"}[answer], None, 0
        if command == "set":
            return ("stored" if client.set(key, value, expire=expire, noreply=False) else "not-stored"), None, 0
        stored = client.add(key, lease if command == "add-lease" else value, expire=expire, noreply=False)
        return ("stored" if stored else "not-stored"), None, 0

    def _run(self, kind: str, key: Any, value: Any = None, expire: int = 0) -> Tuple[str, Any]:
        """Drives one operation to its outcome; returns (outcome, value read)."""
        op = self.migration.begin(kind, key)
        read: Dict[str, Any] = {}
        step = op.step()
        while step is not None:
            command, side, address, cas, exptime, lease = step
            sent = read["old"] if command == "cas-copy" else value
            ttl = expire if exptime is None else exptime
            try:
                reply, found, unique = self._send(self._clients[address], command, key, sent, cas, ttl, lease)
            except MemcacheIllegalInputError:
                raise  # the caller's key or value, before any server was asked
            except (MemcacheError, OSError):
                reply, found, unique = "failed", None, 0
            if reply == "hit":
                read[side] = found
            op.reply(reply, found if isinstance(found, bytes) else b"", unique)
            step = op.step()
        outcome = op.outcome
        if outcome == "failed":
            raise MigrationError(f"{kind} {key!r}: a server failed during the migration")
        return outcome, read.get("new" if outcome == "hit-new" else "old")

    def get(self, key: Any, default: Any = None) -> Any:
        """The key's value, or ``default`` on a miss."""
        outcome, value = self._run("get", key)
        return value if outcome in ("hit-new", "hit-old") else default

    def get_many(self, keys: Iterable[Any]) -> Dict[Any, Any]:
        """The values of the keys that hit, by key."""
        found = {}
        for key in keys:
            outcome, value = self._run("get", key)
            if outcome in ("hit-new", "hit-old"):
                found[key] = value
        return found

    get_multi = get_many

    def set(self, key: Any, value: Any, expire: int = 0, noreply: Optional[bool] = None) -> bool:
        """Stores the value; True (every set is waited for: ``noreply`` is ignored)."""
        return self._run("set", key, value, expire)[0] == "stored"

    def set_many(self, values: Dict[Any, Any], expire: int = 0, noreply: Optional[bool] = None) -> List[Any]:
        """Stores every value; returns the keys that failed (pymemcache's contract)."""
        failed = []
        for key, value in values.items():
            try:
                self.set(key, value, expire)
            except MigrationError:
                failed.append(key)
        return failed

    set_multi = set_many

    def add(self, key: Any, value: Any, expire: int = 0, noreply: Optional[bool] = None) -> bool:
        """Stores the value if the key holds none; True when stored."""
        return self._run("add", key, value, expire)[0] == "stored"

    def delete(self, key: Any, noreply: Optional[bool] = None) -> bool:
        """Deletes the key on every side the migration names; True when it held a value."""
        return self._run("delete", key)[0] == "deleted"

    def close(self) -> None:
        """Closes every server's connection."""
        for client in self._clients.values():
            client.close()


class MigrationError(MemcacheError):
    """A migrating operation failed: a server it needed did not answer."""
