/*
 * The PyPI ketama==0.1.1 copy of libketama's ketama.c includes <Python.h>
 * only to route malloc/free through PyMem_Malloc/PyMem_Free. This shim maps
 * them back to the C allocator so the original C code can be benchmarked in
 * a plain C program; nothing else in ketama.c uses Python.
 */
#include <stdlib.h>
#define PyMem_Malloc malloc
#define PyMem_Free free
