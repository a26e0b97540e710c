"""Tests of the Python binding's set codec (ketama.Set) and its pymemcache
hasher (run by tests/bindings/python.rs with the installed package).

    python -m unittest test_ketama test_sets test_native
"""

import unittest

import ketama
from ketama.pymemcache import KetamaHasher
from support import KEYS


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


if __name__ == "__main__":
    unittest.main()
