"""A hasher for pymemcache's ``HashClient``: keys placed by any ketama flavour.

    from pymemcache.client.hash import HashClient
    from ketama.pymemcache import KetamaHasher

    client = HashClient(servers, hasher=KetamaHasher.flavour("libmemcached"))

``HashClient`` builds its hasher with no arguments and names nodes
``HOST:PORT``; :meth:`KetamaHasher.flavour` returns a class bound to a
flavour (and key hash, and per-node weights). The ring is rebuilt when a node
is added or removed, in the order nodes were added.
"""

import threading
from typing import ClassVar, Dict, List, Optional, Tuple, Type, Union

from ._ketama import Ring, flavour_name


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
