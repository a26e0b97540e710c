"""What the binding's test modules share: the CLI of the same build, keys,
files, and every flavour the library knows."""

import os
import subprocess

import ketama

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
