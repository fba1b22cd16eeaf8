"""tilec.Module: several compiled kernels run as one call (docs/modules.md).

    m = tilec.Module("axpx", T=(1, 64))            # a runtime size and its range
    x, y = m.input("x", np.float32), m.output("y", np.float32)
    w, t = m.constant("w", weights), m.temporary("t", np.float32)
    m.step(mul, x, w, t)                           # kernel sizes named like the module's follow them
    m.step(add, t, x, y, T="T")                    # or say so: "T", "T+1", ("T", -1), 5
    m.finish()                                     # every check over the whole list, the arena laid out
    m(xs, ys, T=5)                                 # the inputs and outputs in the order they were added

A thin layer over tilec/module.h: the checks and the run are the C
library's; this keeps the kernels and the constants' arrays alive as long
as the module."""
import ctypes
import re
import threading
import types
import weakref

import numpy as np

from . import (_AotOptions, _Buffer, _Context, _DTYPES, _Sink, _array, _compile_lock, _lib, _shared_context,
               _when_collected, Kernel, TilecError)

_KINDS = ("input", "output", "temporary", "constant")
_NO_DIM = 0xFFFFFFFF


class _StepSize(ctypes.Structure):  # tilec_step_size
    _fields_ = [("dim", ctypes.c_uint32), ("offset", ctypes.c_int64)]


class Value:
    """A module value: its name, kind (input, output, temporary, constant)
    and dtype; pass it to Module.step."""

    def __init__(self, module, index, name, kind, dtype):
        self._module, self.index, self.name, self.kind, self.dtype = module, index, name, kind, np.dtype(dtype)

    def __repr__(self):
        return f"<tilec.Module value {self.name}: {self.kind} {self.dtype}>"


def _destroy_module(ptr, ctx, keep):
    """A Module's finalizer; the context, kernels and constants it was built
    on (keep) are only held alive until then."""
    with _compile_lock:  # the module allocates through the shared compile context
        _lib.tilec_module_destroy(ptr)


class Module:
    """Compiled kernels run back to back on module values (docs/modules.md):
    inputs and outputs given at each call, constants bound once, temporaries
    in the module's own arena.  Sizes: keyword ranges, NAME=(lo, hi)."""

    def __init__(self, name="module", **sizes):
        self._ctx = _shared_context()
        self._ptr = ctypes.c_void_p()
        self._keep = []  # kernels and constant arrays the C module borrows
        self.name, self.sizes, self.values, self.args = name, {}, [], []
        self.finished = False
        with _compile_lock:
            if _lib.tilec_module_create(self._ctx.ptr, name.encode(), ctypes.byref(self._ptr)) != 0:
                raise self._ctx.error("tilec: cannot create a module")
        self._release = _when_collected(self, _destroy_module, self._ptr, self._ctx, self._keep)
        for size, (lo, hi) in sizes.items():
            index = ctypes.c_uint32()
            self._call(_lib.tilec_module_add_dim, size.encode(), lo, hi, ctypes.byref(index))
            self.sizes[size] = (index.value, lo, hi)
        self._local = threading.local()

    def _call(self, fn, *args):
        with _compile_lock:
            if fn(self._ctx.ptr, self._handle(), *args) != 0:
                raise self._ctx.error(f"tilec: module {self.name}: {fn.__name__} failed")

    def _value(self, name, kind, dtype):
        dtype = np.dtype(dtype)
        if dtype not in _DTYPES:
            raise TypeError(f"tilec: module {self.name}: value {name} has dtype {dtype}, which no kernel takes")
        index = ctypes.c_uint32()
        self._call(_lib.tilec_module_add_value, name.encode(), _KINDS.index(kind), _DTYPES.index(dtype) + 1,
                   ctypes.byref(index))
        v = Value(self, index.value, name, kind, dtype)
        self.values.append(v)
        if kind in ("input", "output"):
            self.args.append(v)
        return v

    def input(self, name, dtype):
        return self._value(name, "input", dtype)

    def output(self, name, dtype):
        return self._value(name, "output", dtype)

    def temporary(self, name, dtype):
        return self._value(name, "temporary", dtype)

    def constant(self, name, array):
        """A constant bound to array's memory (no copy; C-contiguous): the
        module keeps the array alive."""
        a = _array(array)
        if a is None or not a.flags.c_contiguous:
            raise TypeError(f"tilec: module {self.name}: constant {name} takes a C-contiguous array")
        v = self._value(name, "constant", a.dtype)
        v.array = a  # what it is bound to (a module compiled ahead of time binds it again)
        self._keep.append(a)
        buf = _Buffer(a.ctypes.data if a.size else None, a.nbytes, _DTYPES.index(a.dtype) + 1)
        self._call(_lib.tilec_module_bind, v.index, ctypes.byref(buf))
        return v

    def _size(self, kernel, name, spec):
        """A kernel size's tilec_step_size: an int, a module size's name
        (optionally "+N" / "-N"), or (name, offset)."""
        if isinstance(spec, str):
            m = re.fullmatch(r"\s*(\w+)\s*(?:([+-])\s*(\d+))?\s*", spec)
            if not m:
                raise ValueError(f"tilec: module {self.name}: size {name} of {kernel.name}: cannot read {spec!r}")
            spec = (m.group(1), int(m.group(3) or 0) * (-1 if m.group(2) == "-" else 1))
        if isinstance(spec, tuple):
            size, offset = spec
            if size not in self.sizes:
                raise ValueError(f"tilec: module {self.name}: size {name} of {kernel.name} follows {size}, "
                                 f"which is none of the module's sizes ({', '.join(self.sizes) or 'none'})")
            return _StepSize(self.sizes[size][0], offset)
        return _StepSize(_NO_DIM, int(spec))

    def step(self, kernel, *values, **sizes):
        """kernel (a tilec.Kernel) on values, its parameters in order; each
        of its runtime sizes from a keyword, else the module's size of that
        name."""
        if not isinstance(kernel, Kernel):
            raise TypeError(f"tilec: module {self.name}: a step takes a tilec.Kernel, not {type(kernel).__name__}")
        for v in values:
            if not isinstance(v, Value) or v._module is not self:
                raise TypeError(f"tilec: module {self.name}: step {kernel.name} takes values of this module, "
                                f"not {v!r}")
        unknown = set(sizes) - set(kernel.sizes)
        if unknown:
            raise TypeError(f"tilec: module {self.name}: {kernel.name} has no runtime size {', '.join(unknown)}")
        specs = []
        for name in kernel.sizes:
            if name not in sizes and name not in self.sizes:
                raise TypeError(f"tilec: module {self.name}: give {kernel.name}'s runtime size {name} "
                                "(the module has no size of that name)")
            specs.append(self._size(kernel, name, sizes.get(name, name)))
        indices = (ctypes.c_uint32 * max(1, len(values)))(*(v.index for v in values))
        step_sizes = (_StepSize * max(1, len(specs)))(*specs)
        self._call(_lib.tilec_module_add_step, kernel._handle(), len(values), indices, len(specs), step_sizes)
        self._keep.append(kernel)
        if not isinstance(kernel._modules, weakref.WeakSet):
            kernel._modules = weakref.WeakSet()
        kernel._modules.add(self)
        return self

    def pack_constants(self, on=True):
        """Constants a step's kernel packs into panels are packed once, at
        finish, instead of at every call: faster calls, and a second copy of
        those constants (packed_bytes).  Before finish."""
        self._call(_lib.tilec_module_pack_constants, on)
        return self

    @property
    def packed_bytes(self):
        return _lib.tilec_module_packed_bytes(self._handle())

    def finish(self):
        self._call(_lib.tilec_module_finish)
        self.finished = True
        return self

    def compile_aot(self, cpu=None, symbol=None, source=None):
        """The finished module compiled ahead of time (docs/modules.md "Ahead
        of time"): (object bytes, header text).  The object defines
        SYMBOL_create (default: the module's name) for a C program linked
        against the runtime library; cpu: "native" (default), "x86-64-v2",
        "x86-64-v3" or "x86-64-v4"."""
        aot = _AotOptions(cpu.encode() if cpu else None, symbol.encode() if symbol else None,
                          source.encode() if source else None)
        obj, header = _Sink(), _Sink()
        self._call(_lib.tilec_module_compile_aot, ctypes.byref(aot), obj.fn, None, header.fn, None)
        return obj.bytes, header.bytes.decode()

    def time_steps(self, on=True):
        """Timing on (or off): each later call adds each step's wall time to
        its total (step_times); either way the totals restart at 0."""
        _lib.tilec_module_time(self._handle(), on)

    def step_times(self):
        """[(kernel name, seconds)] per step, summed over the calls since
        time_steps()."""
        out, ms = [], ctypes.c_double()
        ptr = self._handle()
        for i in range(_lib.tilec_module_step_count(ptr)):
            name = _lib.tilec_module_step(ptr, i, ctypes.byref(ms))
            out.append((name.decode(), ms.value / 1e3))
        return out

    @property
    def arena_bytes(self):
        return _lib.tilec_module_arena_bytes(self._handle())

    def arg_bytes(self, index, **sizes):
        """The bytes the index-th argument must hold at these sizes."""
        dims = (ctypes.c_int64 * max(1, len(self.sizes)))(*(sizes[n] for n in self.sizes))
        return _lib.tilec_module_arg_bytes(self._handle(), index, dims)

    def _state(self):
        state = getattr(self._local, "state", None)
        if state is None:
            state = self._local.state = types.SimpleNamespace(
                ctx=_Context(), bufs=(_Buffer * max(1, len(self.args)))(),
                dims=(ctypes.c_int64 * max(1, len(self.sizes)))())
        return state

    def __call__(self, *arrays, **sizes):
        """Runs the steps on arrays (the inputs and outputs in the order they
        were added) at these sizes (keywords, one per module size)."""
        if len(arrays) != len(self.args):
            raise TypeError(f"tilec: module {self.name} takes {len(self.args)} arrays "
                            f"({', '.join(v.name for v in self.args)}), {len(arrays)} given")
        state = self._state()
        for i, (v, value) in enumerate(zip(self.args, arrays)):
            a = _array(value)
            if a is None:
                raise TypeError(f"tilec: module {self.name}: {v.name} must be an array, not {type(value).__name__}")
            if a.dtype != v.dtype:
                raise TypeError(f"tilec: module {self.name}: {v.name} has dtype {a.dtype}, the module takes {v.dtype}")
            if not a.flags.c_contiguous:
                raise ValueError(f"tilec: module {self.name}: {v.name} is not C-contiguous")
            if v.kind == "output" and not a.flags.writeable:
                raise ValueError(f"tilec: module {self.name}: output {v.name} is read-only")
            b = state.bufs[i]
            b.data, b.size_bytes, b.elem = a.ctypes.data if a.size else None, a.nbytes, _DTYPES.index(a.dtype) + 1
        if set(sizes) != set(self.sizes):
            raise TypeError(f"tilec: module {self.name} runs at its sizes {', '.join(self.sizes) or '(none)'}, "
                            f"given {', '.join(sizes) or 'none'}")
        for name, (index, _, _) in self.sizes.items():
            state.dims[index] = sizes[name]
        if _lib.tilec_module_run(state.ctx.ptr, self._handle(), len(self.args), state.bufs, len(self.sizes),
                                 state.dims) != 0:
            raise state.ctx.error(f"tilec: module {self.name} failed")

    def _handle(self):
        if not self._ptr:
            raise ValueError(f"tilec: module {self.name} was released (close())")
        return self._ptr

    def close(self):
        """Releases the module now (its kernels stay, and may be closed
        after it); again is harmless.  Not while another thread runs it."""
        self._ptr = None
        self._release()

    def __repr__(self):
        if not self._ptr:
            return f"<tilec.Module {self.name} released>"
        sizes = ", ".join(f"{n}={lo}..{hi}" for n, (_, lo, hi) in self.sizes.items())
        return (f"<tilec.Module {self.name}<{sizes}>({', '.join(v.name for v in self.args)}) "
                f"{_lib.tilec_module_step_count(self._ptr)} steps{'' if self.finished else ', building'}>")
