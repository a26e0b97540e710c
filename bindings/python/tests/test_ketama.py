"""Tests of the Python binding (run by tests/bindings/python.rs with the
installed package; KETAMA_CLI names the `ketama` CLI of the same build).

    python -m unittest test_ketama
"""

import ast
import gc
import os
import subprocess
import sys
import tempfile
import threading
import time
import unittest

import ketama
from ketama.pymemcache import KetamaHasher

CLI = os.environ.get("KETAMA_CLI", "ketama")
KEYS = [f"key:{i}" for i in range(500)] + ["ключ-ü", "", "a b", "x" * 300]


def write(directory, name, content):
    path = os.path.join(directory, name)
    with open(path, "wb") as f:
        f.write(content if isinstance(content, bytes) else content.encode())
    return path


def cli(*args, keys=None):
    """KEY<TAB>SERVER lines of `ketama find ...`, keys given on stdin."""
    run = subprocess.run(
        [CLI, "find", *args], input="".join(k + "\n" for k in keys).encode(),
        capture_output=True, check=True, timeout=60,
    )
    return [line.split("\t")[-1] for line in run.stdout.decode().splitlines()]


def all_flavours():
    """Every flavour the library knows, by asking it for each id (no table
    kept here; ids are never reused, so some are unused)."""
    names = []
    for i in range(256):
        try:
            names.append(ketama.flavour_name(i))
        except ketama.KetamaError:
            pass
    return names


class OriginalModuleTests(unittest.TestCase):
    """python_ketama's own tests, ported to Python 3, and its error behaviour."""

    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.file = write(self.dir, "ketama.servers", "127.0.0.1:11211\t600\n127.0.0.1:11212\t400\n")

    def test_original_vectors(self):
        cont = ketama.Continuum(self.file)
        self.assertEqual(len(cont.get_points()), 320)
        self.assertEqual(cont.get_server("test"), (3454255383, "127.0.0.1:11211"))
        self.assertEqual(cont.get_server(b"test"), (3454255383, "127.0.0.1:11211"))
        self.assertEqual(ketama.hashi("test"), 3446378249)
        self.assertEqual(ketama.hashi(b""), 3649838548)

    def test_points_are_in_continuum_order_and_lookups_land_on_them(self):
        cont = ketama.Continuum(self.file)
        points = cont.get_points()
        self.assertEqual([p for p, _ in points], sorted(p for p, _ in points))
        for key in KEYS:
            point, ip = cont.get_server(key)
            self.assertIn((point, ip), points)
            above = [p for p, _ in points if p >= ketama.hashi(key)]
            self.assertEqual(point, above[0] if above else points[0][0])

    def test_repr_and_filename(self):
        cont = ketama.Continuum(self.file)
        self.assertEqual(repr(cont), f"<ketama.Continuum from '{self.file}'>")
        self.assertEqual(cont.filename, self.file)

    def test_errors(self):
        with self.assertRaises(ketama.KetamaError) as caught:
            ketama.Continuum("/dev/null")
        self.assertIn("/dev/null", str(caught.exception))
        bad = write(self.dir, "bad.servers", "127.0.0.1:11211\tabc\n")
        with self.assertRaises(ketama.KetamaError) as caught:
            ketama.Continuum(bad)
        self.assertIn("line 1", str(caught.exception))
        with self.assertRaises(ketama.KetamaError):
            ketama.Continuum(os.path.join(self.dir, "missing"))
        with self.assertRaises(ValueError):
            ketama.Continuum("/tmp/" + "x" * 251)
        with self.assertRaises(TypeError):
            ketama.Continuum(self.file).get_server(42)

    def test_filename_of_255_bytes_is_accepted(self):
        name = "f" * (255 - len(self.dir) - 1)
        path = write(self.dir, name, "127.0.0.1:11211\t1\n")
        self.assertEqual(len(path.encode()), 255)
        self.assertEqual(ketama.Continuum(path).get_server("k")[1], "127.0.0.1:11211")


class RingTests(unittest.TestCase):
    def setUp(self):
        self.servers = [f"10.0.0.{i}:11211" for i in range(1, 8)]

    def test_every_flavour_agrees_with_the_cli(self):
        flavours = all_flavours()
        self.assertIn("libketama", flavours)
        self.assertIn("libmemcached", flavours)
        for flavour in flavours:
            with ketama.Ring(self.servers, flavour) as ring:
                expected = cli("--flavor", flavour, "--servers", ",".join(self.servers), keys=KEYS)
                self.assertEqual(ring.servers_for(KEYS), expected, flavour)
                self.assertEqual([ring.server(k) for k in KEYS], expected, flavour)
                self.assertEqual(ring.flavour, flavour)

    def test_pymemcache_flavour_places_like_rendezvous_hash(self):
        from pymemcache.client.rendezvous import RendezvousHash

        peer = RendezvousHash(nodes=list(self.servers))
        keys = KEYS + ["clé-%d" % i for i in range(500)]
        with ketama.Ring(self.servers, "pymemcache") as ring:
            self.assertEqual([ring.server(k) for k in keys], [peer.get_node(k) for k in keys])
            with self.assertRaises(ketama.KetamaError) as caught:
                ring.points()
            self.assertIn("no continuum points", str(caught.exception))

    def test_hash_names_follow_the_peer(self):
        crc15 = ketama.Ring(self.servers, "twemproxy", "crc32")
        crc32a = ketama.Ring(self.servers, "twemproxy", "crc32a")
        for ring, name in [(crc15, "crc32"), (crc32a, "crc32a")]:
            expected = cli("--flavor", "twemproxy", "--hash", name, "--servers", ",".join(self.servers), keys=KEYS)
            self.assertEqual(ring.servers_for(KEYS), expected, name)
        self.assertNotEqual(crc15.servers_for(KEYS), crc32a.servers_for(KEYS))
        with self.assertRaises(ketama.KetamaError) as caught:
            ketama.Ring(self.servers, "pecl-memcache", "md5")
        self.assertEqual(caught.exception.status_name, "KETAMA_ERR_INVALID_ARGUMENT")
        self.assertIn("it offers", str(caught.exception))

    def test_hash_default_is_the_flavours_own(self):
        # "default" in any case is the flavour's own hash, as KETAMA_HASH_DEFAULT
        # in C and `ketama find --hash default` are.
        for flavour in ("libketama", "twemproxy", "dalli", "pymemcache"):
            own = ketama.Ring(self.servers, flavour).servers_for(KEYS)
            self.assertEqual(own, cli("--flavor", flavour, "--hash", "default", "--servers", ",".join(self.servers), keys=KEYS))
            for default in ("default", "DEFAULT", b"Default"):
                self.assertEqual(ketama.Ring(self.servers, flavour, default).servers_for(KEYS), own, (flavour, default))
                self.assertEqual(ketama.hash_id(flavour, default), 0)

    def test_ids_and_servers_are_checked_by_the_library(self):
        for bad in (-1, 4000, 2**40):
            with self.assertRaises(ketama.KetamaError) as caught:
                ketama.flavour_name(bad)
            self.assertEqual(str(caught.exception), f"unknown ketama_flavour id {bad}")
            self.assertEqual(caught.exception.status_name, "KETAMA_ERR_INVALID_ARGUMENT")
        for servers, words in (
            ([""], "server address '' is empty"),
            (["a\0b:1"], "server address 'a\\x00b:1' has a NUL byte at offset 1"),
            ([("a:1", 1, "")], "server name '' is empty"),
        ):
            with self.assertRaises(ketama.KetamaError) as caught:
                ketama.Ring(servers)
            self.assertIn(words, str(caught.exception))
            self.assertEqual(caught.exception.status_name, "KETAMA_ERR_INVALID_ARGUMENT")

    def test_weights_dict_and_tuples(self):
        weights = {s: 100 + 50 * i for i, s in enumerate(self.servers)}
        spec = ",".join(f"{s}:{w}" for s, w in weights.items())
        expected = cli("--servers", spec, keys=KEYS)
        self.assertEqual(ketama.Ring(weights).servers_for(KEYS), expected)
        self.assertEqual(ketama.Ring(list(weights.items())).servers_for(KEYS), expected)

    def test_group_keys_plans_one_multi_get_per_server(self):
        ring = ketama.Ring(self.servers)
        servers = cli("--servers", ",".join(self.servers), keys=KEYS)
        expected = [(s, [k for k, ks in zip(KEYS, servers) if ks == s]) for s in self.servers]
        expected = [(s, keys) for s, keys in expected if keys]
        self.assertEqual(ring.group_keys(KEYS), expected)
        as_bytes = [(s, [k.encode() for k in keys]) for s, keys in expected]
        self.assertEqual(ring.group_keys(k.encode() for k in KEYS), as_bytes)
        self.assertEqual(ring.group_keys([]), [])

    def test_lookups(self):
        ring = ketama.Ring(self.servers, "php-memcached")
        self.assertEqual(ring.flavour, "libmemcached")
        self.assertEqual(len(ring), 7)
        self.assertEqual(sum(ring.point_counts), ring.point_count())
        at = ring.find("user:42")
        self.assertEqual(at.address, ring.server("user:42"))
        self.assertEqual(at.server_index, ring.server_index(b"user:42"))
        self.assertEqual(ring.points()[at.point_index], (at.point, at.server_index))
        other = ring.find_avoiding("user:42", [at.address])
        self.assertNotEqual(other.server_index, at.server_index)
        self.assertEqual(ring.servers_for({"a": "user:42"}), {"a": at.address})
        singles = [ring.server_index(k) for k in KEYS]
        # Batch forms: str (ASCII and not), bytes, mixed, a generator, all like single lookups.
        ascii_keys = [k for k in KEYS if k.isascii()]
        self.assertEqual(ring.server_indices(KEYS), singles)
        self.assertEqual(ring.server_indices([k.encode() for k in KEYS]), singles)
        self.assertEqual(ring.server_indices([k.encode() if i % 2 else k for i, k in enumerate(KEYS)]), singles)
        self.assertEqual(ring.server_indices(k for k in ascii_keys), [ring.server_index(k) for k in ascii_keys])
        self.assertEqual(ring.server_indices([]), [])
        with self.assertRaises(TypeError):
            ring.server_indices(["k", 5])
        packed = b"".join(k.encode() for k in KEYS)
        self.assertEqual(
            ring.server_indices_packed(packed, [len(k.encode()) for k in KEYS]),
            [ring.server_index(k) for k in KEYS],
        )
        with self.assertRaises(ketama.KetamaError) as caught:
            ring.server_indices_packed(b"abc", [2, 2])
        self.assertIn("runs past the end", str(caught.exception))
        with self.assertRaises(ketama.KetamaError) as caught:
            ring.find_avoiding("k", list(range(7)))
        self.assertEqual(caught.exception.status_name, "KETAMA_ERR_NO_SERVER_AVAILABLE")

    def test_from_file_modes_and_errors(self):
        directory = tempfile.mkdtemp()
        strict = write(directory, "s", "10.0.0.1:11211\t100\n10.0.0.2:11211\t12abc\n")
        with self.assertRaises(ketama.KetamaError) as caught:
            ketama.Ring.from_file(strict)
        self.assertEqual(caught.exception.status_name, "KETAMA_ERR_PARSE")
        self.assertIn("line 2", str(caught.exception))
        self.assertEqual(len(ketama.Ring.from_file(strict, parse="libketama")), 2)
        peers = write(directory, "p", "10.0.0.1:11211:2 alpha\n10.0.0.2:11211:1 beta\n")
        ring = ketama.Ring.from_file(peers, "twemproxy", parse="peers")
        self.assertEqual(ring.servers, ["10.0.0.1:11211", "10.0.0.2:11211"])
        with self.assertRaises(ValueError) as caught:
            ketama.Ring.from_file(peers, parse="loose")
        self.assertIn("sockiopool", str(caught.exception))  # the library's parse modes, all of them
        # SockIOPool lines: a weight Integer.parseInt cannot read is 1.
        sockio = write(directory, "j", "10.0.0.1:11211\t3\n10.0.0.2:11211\tx\n")
        ring = ketama.Ring.from_file(sockio, "libketama-java", parse="sockiopool")
        self.assertEqual(ring.servers, ["10.0.0.1:11211", "10.0.0.2:11211"])
        self.assertEqual(ring.point_counts[0], 3 * ring.point_counts[1])
        with self.assertRaises(TypeError):
            ketama.Ring("10.0.0.1:11211")
        with self.assertRaises(ketama.KetamaError) as caught:
            ketama.Ring([], "libketama")
        self.assertTrue(str(caught.exception))
        with self.assertRaises(ketama.KetamaError) as caught:
            ketama.Ring(self.servers, "no-such-flavour")
        self.assertIn("no-such-flavour", str(caught.exception))
        self.assertIn("libketama", str(caught.exception))

    def test_placement_options_are_the_librarys(self):
        keys = KEYS + [f"{{user:{i}}}:profile" for i in range(100)]
        for flavour, options, flags in [
            ("memcached-fast", "points=7", ["--points", "7"]),
            ("twemproxy", "hash_tag={}", ["--hash-tag", "{}"]),
        ]:
            expected = cli("--flavor", flavour, *flags, "--servers", ",".join(self.servers), keys=keys)
            self.assertEqual(ketama.Ring(self.servers, flavour, options=options).servers_for(keys), expected)
            path = write(tempfile.mkdtemp(), "servers", "".join(s + "\n" for s in self.servers))
            ring = ketama.Ring.from_file(path, flavour, parse="peers", options=options.encode())
            self.assertEqual(ring.servers_for(keys), expected)
        self.assertNotEqual(
            ketama.Ring(self.servers, "memcached-fast", options="points=7").servers_for(keys),
            ketama.Ring(self.servers, "memcached-fast").servers_for(keys),
        )
        with self.assertRaises(ketama.KetamaError) as caught:
            ketama.Ring(self.servers, "libketama", options="points=7")
        self.assertEqual(caught.exception.status_name, "KETAMA_ERR_INVALID_ARGUMENT")
        self.assertIn("memcached-fast", str(caught.exception))

    def test_names_are_the_librarys(self):
        # "default" and None are the flavour's own hash, as the library resolves it.
        self.assertEqual(ketama.hash_id("twemproxy", None), ketama.hash_id("twemproxy", "default"))
        # twemproxy's crc32 is the 15-bit crc, crc32a the full CRC-32.
        self.assertNotEqual(ketama.hash_id("twemproxy", "crc32"), ketama.hash_id("twemproxy", "crc32a"))
        self.assertEqual(ketama.hash_id("twemproxy", "crc32a"), ketama.hash_id("pecl-memcache", "crc32"))
        self.assertEqual(ketama.flavour_name("php-memcached"), "libmemcached")
        with self.assertRaises(ketama.KetamaError) as caught:
            ketama.flavour_id(10**6)
        self.assertEqual(caught.exception.status_name, "KETAMA_ERR_INVALID_ARGUMENT")
        self.assertEqual(caught.exception.status, ketama.names("status")["KETAMA_ERR_INVALID_ARGUMENT"])
        # Every encoding the header declares decodes its own empty value; the writer's
        # actions and replies are those of the C enums.
        encodings = ketama.names("set_encoding")
        self.assertIn("membase-comma", encodings)
        for name in encodings:
            self.assertEqual(len(ketama.Set.decode(b"", encoding=name)), 0, name)
        self.assertEqual(ketama.SetWriter("remove").action, "append")

    def test_close_is_deterministic_and_safe(self):
        ring = ketama.Ring(self.servers)
        with ring as r:
            self.assertIs(r, ring)
            r.server("k")
        self.assertTrue(ring.closed)
        ring.close()  # a second close does nothing
        for use in (lambda: ring.server("k"), lambda: ring.server_indices(["k"]), ring.points):
            with self.assertRaises(ValueError):
                use()
        with self.assertRaises(ValueError):
            with ring:
                pass
        self.assertIn("closed", repr(ring))
        cont = ketama.Continuum
        del cont
        gc.collect()

    def test_threads_share_a_ring(self):
        ring = ketama.Ring(self.servers, "libmemcached")
        expected = ring.servers_for(KEYS)
        results = []

        def work():
            results.append([ring.server(k) for k in KEYS] == expected and ring.servers_for(KEYS) == expected)

        threads = [threading.Thread(target=work) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(results, [True] * 8)


class RingCacheTests(unittest.TestCase):
    """The process's ring cache: Ring, Ring.from_file and Continuum built
    again from the same file state or list are the ring already built; an
    edit is read once it has settled; the bounds are set at run time."""

    @staticmethod
    def write_settled(path, content):
        with open(path, "w") as f:
            f.write(content)
        hour_ago = time.time() - 3600
        os.utime(path, (hour_ago, hour_ago))
        time.sleep(0.2)  # past the 100 ms its ctime takes to settle

    @staticmethod
    def counted(before):
        after = ketama.ring_cache_stats()
        return after["hits"] - before["hits"], after["misses"] - before["misses"]

    def test_a_second_construction_is_the_ring_already_built(self):
        path = os.path.join(tempfile.mkdtemp(), "servers")
        self.write_settled(path, "10.0.0.1:11211\t100\n10.0.0.2:11211\t100\n")
        before = ketama.ring_cache_stats()
        first = ketama.Ring.from_file(path)
        second = ketama.Ring.from_file(path)
        self.assertEqual(self.counted(before), (1, 1))
        self.assertEqual(first.servers_for(KEYS), second.servers_for(KEYS))
        # A list given as a dict or as tuples is the same list.
        servers = {"10.9.0.1:11211": 100, "10.9.0.2:11211": 200}
        before = ketama.ring_cache_stats()
        ketama.Ring(servers)
        ketama.Ring(list(servers.items()))
        self.assertEqual(self.counted(before), (1, 1))
        # Edited in place: read again once settled; the ring made before is untouched.
        self.write_settled(path, "10.0.0.1:11211\t100\n10.0.0.2:11211\t100\n10.0.0.3:11211\t100\n")
        before = ketama.ring_cache_stats()
        edited = ketama.Ring.from_file(path)
        self.assertEqual((len(edited), len(first)), (3, 2))
        self.assertEqual(self.counted(before), (0, 1))
        self.assertEqual(ketama.Ring.from_file(path).servers, edited.servers)
        self.assertEqual(self.counted(before), (1, 1))

    def test_bounds_set_at_run_time(self):
        stats = ketama.ring_cache_stats()
        self.assertEqual(
            sorted(stats), ["bytes", "evictions", "hits", "max_bytes", "max_rings", "misses", "rings"]
        )
        path = os.path.join(tempfile.mkdtemp(), "servers")
        self.write_settled(path, "10.0.0.1:11211\t100\n")
        held = ketama.Ring.from_file(path)
        try:
            ketama.ring_cache_configure(0, 0)
            now = ketama.ring_cache_stats()
            self.assertEqual((now["rings"], now["bytes"], now["max_rings"], now["max_bytes"]), (0, 0, 0, 0))
            before = ketama.ring_cache_stats()
            ketama.Ring.from_file(path)
            ketama.Ring.from_file(path)
            self.assertEqual(self.counted(before), (0, 2))
            self.assertEqual(held.servers, ["10.0.0.1:11211"])  # dropped, still whole
        finally:
            ketama.ring_cache_configure(stats["max_rings"], stats["max_bytes"])
        self.assertEqual(ketama.ring_cache_stats()["max_rings"], stats["max_rings"])


class SetTests(unittest.TestCase):
    def test_encode_decode_and_compaction(self):
        value = ketama.Set.encode(["bob", "carol", "dave"]) + ketama.Set.encode(["carol"], "remove")
        self.assertEqual(value, b"+bob +carol +dave -carol ")
        with ketama.Set.decode(value) as s:
            self.assertEqual(s.members(), [b"bob", b"dave"])
            self.assertEqual(len(s), 2)
            self.assertIn("bob", s)
            self.assertNotIn(b"carol", s)
            self.assertEqual(s.stats(), ketama.Stats(2, 4, 1, 2, len(value), "t1"))
            self.assertEqual(s.compacted(), b"+bob +dave ")
            self.assertFalse(s.should_compact())
            self.assertTrue(s.should_compact(threshold=1))
            binary = s.compacted("b1")
        self.assertEqual(ketama.Set.decode(binary).members(), [b"bob", b"dave"])
        self.assertTrue(s.closed)
        with self.assertRaises(ValueError):
            s.members()

    def test_paired_lists_and_the_seal(self):
        # The manual's follow-X / unfollow-X: 222 followed twice, unfollowed once.
        follows = ketama.Set.encode_paired(["1234", "222", "987", "222"])
        self.assertEqual(follows, b"+1234 +222 +987 +222 ")
        unfollows = ketama.Set.encode_paired([b"222", b"987"])
        with ketama.Set.decode_paired(follows, unfollows) as s:
            self.assertEqual(s.members(), [b"1234", b"222"])
            self.assertFalse(s.sealed)
        self.assertEqual(ketama.Set.decode_paired(b"", b"").members(), [])
        self.assertEqual(ketama.Set.paired_key("X"), b"follow-X")
        self.assertEqual(ketama.Set.paired_key(b"X", "remove"), b"unfollow-X")
        with self.assertRaises(ValueError):
            ketama.Set.paired_key("X", "sideways")
        with self.assertRaises(ketama.KetamaError) as caught:
            ketama.Set.decode_paired(b"+a ", b"*b ")
        self.assertEqual(caught.exception.status_name, "KETAMA_ERR_SET_DECODE")
        self.assertTrue(ketama.Set.decode(b"^+1234", "membase-plusminus").sealed)

    def test_plan_read(self):
        value = b"".join(ketama.Set.encode([f"m{i}"]) + ketama.Set.encode([f"m{i}"], "remove") for i in range(40))
        value += ketama.Set.encode(["kept"])
        s, plan = ketama.Set.plan_read(value, cas=77, remaining_ttl=-1)
        self.assertEqual(s.members(), [b"kept"])
        self.assertIsNone(plan)
        s, plan = ketama.Set.plan_read(value, cas=77, remaining_ttl=300, threshold=10)
        self.assertEqual(plan, ketama.Compaction(b"+kept ", 77, 300, True))
        s, plan = ketama.Set.plan_read(value, cas=5, threshold=10)
        self.assertFalse(plan.exptime_known)

    def test_algebra(self):
        a = ketama.Set.decode(ketama.Set.encode(["a", "b", "c"]))
        b = ketama.Set.decode(ketama.Set.encode(["b", "c", "d"]))
        self.assertEqual(a.union(b).members(), [b"a", b"b", b"c", b"d"])
        self.assertEqual(a.intersection(b).members(), [b"b", b"c"])
        self.assertEqual(a.difference(b).members(), [b"a"])
        self.assertEqual(a.intercard(b), 2)
        self.assertEqual(a.intercard(b, limit=1), 1)
        self.assertEqual(a.union(None).members(), [b"a", b"b", b"c"])
        self.assertEqual(a.intersection(None).members(), [])

    def test_errors_carry_the_library_message(self):
        with self.assertRaises(ketama.KetamaError) as caught:
            ketama.Set.decode(b"+bob ?x ")
        e = caught.exception
        self.assertEqual(e.status_name, "KETAMA_ERR_SET_DECODE")
        self.assertIn("BadOp at byte offset 5 (record 1)", str(e))
        self.assertEqual((e.offset, e.record), (5, 1))
        with self.assertRaises(ketama.KetamaError) as caught:
            ketama.Set.encode(["ok", "has space"])
        self.assertEqual(caught.exception.status_name, "KETAMA_ERR_SET_MEMBER")
        self.assertIn("of member 1", str(caught.exception))
        with self.assertRaises(ValueError):
            ketama.Set.decode(b"", encoding="nope")

    def test_writer_state_machine(self):
        w = ketama.SetWriter("add")
        self.assertEqual(w.action, "append")
        self.assertEqual(w.step("not_stored"), "add")
        self.assertEqual(w.step("stored"), "done_created")
        self.assertTrue(w.done)
        w.close()
        w.close()
        with self.assertRaises(ValueError):
            w.step("stored")
        r = ketama.SetWriter("remove")
        self.assertEqual(r.step("not_stored"), "probe")
        self.assertEqual(r.step("not_found"), "done_nothing_to_remove")
        contended = ketama.SetWriter("add", max_retries=1)
        steps = [contended.step("not_stored") for _ in range(4)]
        self.assertEqual(steps, ["add", "append", "add", "probe"])
        with self.assertRaises(ketama.KetamaError) as caught:
            contended.step("not_stored")
        self.assertEqual(caught.exception.status_name, "KETAMA_ERR_SET_CONTENDED")
        self.assertIn("while the key came and went", str(caught.exception))
        with self.assertRaises(ValueError):
            ketama.SetWriter("add").step("maybe")


class HasherTests(unittest.TestCase):
    def test_hasher_places_like_the_ring(self):
        nodes = ["127.0.0.1:11211", "127.0.0.1:11212", "127.0.0.1:11213"]
        hasher = KetamaHasher.flavour("libmemcached")()
        self.assertIsNone(hasher.get_node("k"))
        for node in nodes:
            hasher.add_node(node)
        ring = ketama.Ring(nodes, "libmemcached")
        self.assertEqual([hasher.get_node(k) for k in KEYS], ring.servers_for(KEYS))
        hasher.remove_node(nodes[1])
        smaller = ketama.Ring([nodes[0], nodes[2]], "libmemcached")
        self.assertEqual([hasher.get_node(k) for k in KEYS], smaller.servers_for(KEYS))
        with self.assertRaises(ketama.KetamaError):
            KetamaHasher.flavour("no-such-flavour")


class NativeModuleTests(unittest.TestCase):
    """What the native module adds: no library to find, bytes-like keys,
    the GIL released in batch calls, stubs that match it."""

    def setUp(self):
        self.servers = [f"10.0.0.{i}:11211" for i in range(1, 8)]

    def test_the_package_carries_its_native_code(self):
        package = os.path.dirname(ketama.__file__)
        self.assertEqual(os.path.dirname(ketama.library_path()), package)
        self.assertTrue(os.path.basename(ketama.library_path()).startswith("_ketama."))
        self.assertNotIn("KETAMA_LIBRARY", os.environ)
        for name in ("py.typed", "_ketama.pyi"):
            self.assertTrue(os.path.isfile(os.path.join(package, name)), name)

    def test_keys_of_every_bytes_like_type(self):
        ring = ketama.Ring(self.servers, "libmemcached")
        for key in ["key:1", "ключ-ü", "", "a\x00b"]:
            data = key.encode()
            expected = ring.server_index(data)
            for form in (key, bytearray(data), memoryview(data)):
                self.assertEqual(ring.server_index(form), expected, repr(form))
            self.assertEqual(ring.server_indices([key, bytearray(data), memoryview(data)]), [expected] * 3)
        with self.assertRaises(TypeError) as caught:
            ring.server_index(42)
        self.assertEqual(str(caught.exception), "key must be str or bytes, not int")
        with self.assertRaises(UnicodeEncodeError):
            ring.server_index("\ud800")  # a lone surrogate has no UTF-8 form, as str.encode() says

    def test_errors_are_the_librarys_statuses(self):
        statuses = ketama.names("status")
        with self.assertRaises(ketama.KetamaError) as caught:
            ketama.Ring([], "libketama")
        self.assertEqual(caught.exception.status, statuses["KETAMA_ERR_NO_SERVERS"])
        self.assertEqual(caught.exception.status_name, "KETAMA_ERR_NO_SERVERS")
        with self.assertRaises(ketama.KetamaError) as caught:
            ketama.Set.decode(b"+bob ?x ")
        self.assertEqual(caught.exception.kind, "BadOp")
        error = ketama.KetamaError("raised by a caller", 4, "KETAMA_ERR_PARSE")
        self.assertEqual((str(error), error.status, error.status_name), ("raised by a caller", 4, "KETAMA_ERR_PARSE"))
        self.assertEqual(ketama.KetamaError("plain").status, 0)
        self.assertEqual(repr(ketama.KetamaError), "<class 'ketama.KetamaError'>")
        with self.assertRaises(ValueError) as caught:
            ketama.names("colour")
        self.assertIn("set_encoding", str(caught.exception))

    def test_names_come_from_the_library(self):
        self.assertEqual(ketama.names("flavour"), {name: ketama.flavour_id(name) for name in all_flavours()})
        self.assertEqual(ketama.names("hash")["default"], 0)
        self.assertEqual(ketama.names("set_encoding")["auto"], 0)
        for parse in ketama.names("parse_mode"):  # every reading, sockiopool included
            self.assertEqual(ketama.parse_mode_id(parse), ketama.names("parse_mode")[parse])
        self.assertIn("sockiopool", ketama.names("parse_mode"))
        for flavour in all_flavours():
            self.assertEqual(ketama.flavour_id(flavour), ketama.names("flavour")[flavour])
        self.assertEqual(ketama.canonical_hash_id("crc32a"), ketama.names("hash")["crc32"])

    def test_results_are_named_tuples(self):
        ring = ketama.Ring(self.servers)
        at = ring.find("k")
        self.assertIsInstance(at, tuple)
        self.assertEqual(at._fields, ("server_index", "address", "point", "point_index"))
        self.assertEqual(repr(type(at)), "<class 'ketama.Location'>")
        self.assertEqual(ketama.Set.decode(b"+a ").stats()._fields[-1], "encoding")

    def test_continuum_close(self):
        path = write(tempfile.mkdtemp(), "servers", "127.0.0.1:11211\t1\n")
        with ketama.Continuum(path) as cont:
            self.assertEqual(cont.get_server("k")[1], "127.0.0.1:11211")
        with self.assertRaises(ValueError):
            cont.get_server("k")

    def test_batch_calls_release_the_gil(self):
        # With a switch interval of 1,000 s this thread never hands the GIL
        # over on its own: the other thread can count only while a batch
        # call has released it (or while this thread sleeps).
        ring = ketama.Ring(self.servers)
        keys = [f"key:{i}" for i in range(200_000)]
        counted, stop = [0], threading.Event()

        def count():
            while not stop.is_set():
                counted[0] += 1
                time.sleep(0.0001)

        interval = sys.getswitchinterval()
        counter = threading.Thread(target=count)
        try:
            sys.setswitchinterval(1000)
            counter.start()
            while counted[0] == 0:
                time.sleep(0.001)
            moved = []
            for _ in range(50):
                before = counted[0]
                ring.server_indices(keys)
                moved.append(counted[0] - before)
                if moved[-1]:
                    break
            plain = []
            for _ in range(3):
                before = counted[0]
                sum(len(k) for k in keys)  # Python code keeps the GIL throughout
                plain.append(counted[0] - before)
        finally:
            stop.set()
            sys.setswitchinterval(interval)
            counter.join()
        self.assertTrue(any(moved), moved)
        self.assertEqual(plain, [0, 0, 0])

    def test_close_while_other_threads_look_up(self):
        # Batches release the GIL while they run; close() waits for none of
        # them and they end with ValueError on their next call.
        ring = ketama.Ring(self.servers)
        keys = [f"key:{i}" for i in range(100_000)]
        ended, started = [], threading.Barrier(5)

        def work():
            started.wait()
            try:
                while True:
                    ring.server_indices(keys)
                    ring.server("key:1")
                    ring.find("key:1")
            except ValueError as error:
                ended.append(str(error))

        threads = [threading.Thread(target=work) for _ in range(4)]
        for thread in threads:
            thread.start()
        started.wait()
        ring.server_indices(keys)
        ring.close()
        for thread in threads:
            thread.join()
        self.assertEqual(ended, ["Ring is closed"] * 4)

    def test_migration_routes_and_steps_as_the_library_says(self):
        old = ketama.Ring(["10.0.0.1:11211", "10.0.0.2:11211", "10.0.0.3:11211"])
        new = ketama.Ring(["10.0.0.1:11211", "10.0.0.2:11211", "10.0.0.3:11211", "10.0.0.4:11211"])
        m = ketama.Migration(old, new, start_ms=1000, interval="1s", warmup=10)
        self.assertEqual((m.mode, m.start_ms, m.end_ms), ("warmup", 1000, 1000 + 1000 + 10_000 + 1000))
        routes = [m.route(f"key:{i}") for i in range(1000)]
        for i, (to, frm) in enumerate(routes):
            self.assertEqual(to, new.server(f"key:{i}"))
            self.assertIn(frm, (None, old.server(f"key:{i}")))
        key = next(f"key:{i}" for i, (_, frm) in enumerate(routes) if frm is not None)
        self.assertEqual([m.phase(key, t) for t in (999, 1000, 2000, 12_000, 13_000)],
                         ["old", "prepare", "warm", "switched", "new"])
        op = m.begin("get", key, 2500)
        self.assertEqual((op.phase, op.moved, op.outcome), ("warm", True, None))
        self.assertEqual(op.step()[:3], ("get", "new", "10.0.0.4:11211"))
        op.reply("miss")
        command, side, _, _, exptime, lease = op.step()
        self.assertEqual((command, side, exptime), ("add-lease", "new", 10))
        self.assertTrue(lease)
        with self.assertRaisesRegex(ketama.KetamaError, "reply deleted does not answer the command add-lease"):
            op.reply("deleted")
        op.reply("failed")
        self.assertEqual(op.step()[:2], ("get", "old"))
        op.reply("hit", b"value")
        self.assertIsNone(op.step())
        self.assertEqual(op.outcome, "hit-old")
        with self.assertRaisesRegex(ValueError, "speed"):
            m.begin("speed", key)
        with self.assertRaisesRegex(ketama.KetamaError, "unknown migration option"):
            ketama.Migration(old, new, speed=3)
        with self.assertRaisesRegex(ketama.KetamaError, "warm-up length above 0"):
            ketama.Migration(old, new, options="warmup=0")
        with self.assertRaisesRegex(ValueError, "not both"):
            ketama.Migration(old, new, options="warmup=1h", interval=3)
        with self.assertRaises(ValueError):
            ketama.Migration(old, new, mode="sideways")
        self.assertEqual(ketama.Migration(old, new, "gradual").mode, "gradual")

    def test_stubs_declare_the_native_api(self):
        native = ketama._ketama
        with open(os.path.join(os.path.dirname(ketama.__file__), "_ketama.pyi")) as f:
            tree = ast.parse(f.read())
        declared = {}
        for node in tree.body:
            if isinstance(node, ast.FunctionDef):
                declared[node.name] = node
            elif isinstance(node, ast.ClassDef):
                declared[node.name] = {n.name: n for n in node.body if isinstance(n, ast.FunctionDef)}
            elif isinstance(node, ast.AnnAssign):
                declared[node.target.id] = None
        public = {n for n in dir(native) if not n.startswith("_")} | {"__version__"}
        self.assertEqual(public, set(declared))
        protocols = {"__len__", "__iter__", "__contains__", "__enter__", "__exit__"}
        for name in public:
            runtime, stub = getattr(native, name), declared[name]
            if isinstance(runtime, type):
                members = {n for n in vars(runtime) if not n.startswith("_") or n in protocols}
                self.assertEqual(members, set(stub) - {"__init__"}, name)
                for method in members - protocols:
                    self.assertSignature(getattr(runtime, method), stub[method], f"{name}.{method}")
                if "__init__" in stub:
                    self.assertSignature(runtime, stub["__init__"], f"{name}()")
            elif callable(runtime):
                self.assertSignature(runtime, stub, name)

    def assertSignature(self, runtime, stub, name):
        """The stub's parameter names are the native function's (when it publishes them)."""
        import inspect

        if not isinstance(stub, ast.FunctionDef):
            return  # a property
        try:
            params = list(inspect.signature(runtime).parameters)
        except (TypeError, ValueError):
            return
        arguments = stub.args
        names = [a.arg for a in arguments.posonlyargs + arguments.args + arguments.kwonlyargs]
        if arguments.vararg:
            names.insert(len(arguments.posonlyargs + arguments.args), arguments.vararg.arg)
        if arguments.kwarg:
            names.append(arguments.kwarg.arg)
        names = [n for n in names if n not in ("self", "cls")]
        params = [p for p in params if p not in ("self", "cls", "$self", "$cls")]
        self.assertEqual(names, params, name)


if __name__ == "__main__":
    unittest.main()
