# Cython's declarations for firmware/bg/engine/_core.py (an augmenting .pxd: the source stays
# the one MicroPython runs; this file only gives C types to what its viper methods already
# treat as machine integers and byte pointers). Built by host_tools/setup.py.
import cython


cdef class MoveGenCore:
    cdef public object w, st, hit, d, sl, res, endb, stk, tgt, visit, mask
    cdef public Py_ssize_t mb, ob, offi, out, nd, maxd, need, bmask, nvis, rdepth, rout
    cdef public Py_ssize_t jobs, sjob, pas, resn, lift, side, big, small
    cdef public bint dbl, passb, stop, multi

    # the hot loop (every maximal play): every index and count a C integer, the buffers
    # bytearrays indexed with bounds checks
    @cython.locals(w=bytearray, st=bytearray, dd=bytearray, stk=bytearray,
                   mb=Py_ssize_t, ob=Py_ssize_t, offi=Py_ssize_t, maxd=Py_ssize_t,
                   best=Py_ssize_t, out=Py_ssize_t, need=Py_ssize_t, prune=Py_ssize_t,
                   dbl=Py_ssize_t, stopping=Py_ssize_t, pause=Py_ssize_t, depth=Py_ssize_t,
                   back=Py_ssize_t, p=Py_ssize_t, t=Py_ssize_t, q=Py_ssize_t, k=Py_ssize_t,
                   fl=Py_ssize_t, nv=Py_ssize_t)
    cpdef Py_ssize_t _walk(self, Py_ssize_t longest, Py_ssize_t lim)
