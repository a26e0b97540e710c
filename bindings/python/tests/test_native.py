"""Tests of the native module itself: its stubs match it, handles are freed,
errors are typed (run by tests/bindings/python.rs with the installed package).

    python -m unittest test_ketama test_sets test_native
"""

import ast
import os
import sys
import tempfile
import threading
import time
import unittest

import ketama
from support import write, all_flavours


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
