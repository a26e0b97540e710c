"""Prints the binding's ctypes declarations for tests/bindings_python.rs, which
checks them against include/ketama.h:

    function NAME<TAB>RESTYPE<TAB>ARGTYPE...
    struct C_NAME<TAB>FIELD:TYPE...

A type is "void", "c_char_p", "c_void_p", "c_bool", "c_double", an integer as
its signedness and width ("u32", "i64"), "struct C_NAME" for a Structure, and
"*" before the type a POINTER points to."""

import ctypes

from ketama import _lib


def render(t):
    if t is None:
        return "void"
    if issubclass(t, ctypes._Pointer):
        return "*" + render(t._type_)
    if issubclass(t, ctypes.Structure):
        return "struct " + t._c_struct_
    named = {ctypes.c_char_p: "c_char_p", ctypes.c_void_p: "c_void_p", ctypes.c_bool: "c_bool",
             ctypes.c_double: "c_double"}
    if t in named:
        return named[t]
    signed = t(-1).value < 0
    return f"{'i' if signed else 'u'}{8 * ctypes.sizeof(t)}"


for name, (restype, argtypes) in _lib._SIGNATURES.items():
    print("\t".join(["function " + name, render(restype)] + [render(a) for a in argtypes]))
for value in vars(_lib).values():
    if isinstance(value, type) and issubclass(value, ctypes.Structure) and value is not ctypes.Structure:
        print("\t".join(["struct " + value._c_struct_] + [f"{n}:{render(t)}" for n, t in value._fields_]))
