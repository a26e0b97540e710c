"""Tests of the Python binding's rings (run by tests/bindings/python.rs with
the installed package; KETAMA_CLI names the `ketama` CLI of the same build):
the original module's API, Ring and the ring cache.

    python -m unittest test_ketama test_sets test_native
"""

import gc
import os
import tempfile
import threading
import time
import unittest

import ketama
from support import KEYS, write, cli, all_flavours


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
            sorted(stats), ["attached", "bytes", "evictions", "hits", "max_bytes", "max_rings", "misses", "rings", "rolled", "sharing"]
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


if __name__ == "__main__":
    unittest.main()
