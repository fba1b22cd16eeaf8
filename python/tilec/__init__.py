"""tilec from Python: compile TileIR kernels and run them on arrays without copying them.

    import numpy as np, tilec
    softmax = tilec.compile("examples/softmax.tir", R=1024, W=4096, threads=2)
    x = np.random.rand(1024, 4096).astype(np.float32)
    y = softmax(x)                 # the output allocated and returned
    softmax(x, x)                  # or written in place (here over the input)
    print(softmax.realization)

A thin ctypes layer over libtilec.so (docs/python.md): arguments are NumPy
arrays or anything that speaks DLPack (PyTorch CPU tensors, JAX CPU arrays)
or the buffer protocol (array.array, bytearray, memoryview), checked (dtype,
shape, C-contiguity, writability, CPU memory) and passed without copies; an
output the call allocates comes back as the inputs' array type when that
type can import DLPack (torch, jax), else as a numpy.ndarray; the GIL
is released while a kernel runs; errors raise tilec.TilecError carrying the
diagnostics (codes, locations, the source line with a caret).

The library is found at $TILEC_LIBRARY, beside this package, in the build
tree of the checkout the package sits in (build/libtilec.so), or by the
system's loader (after `make install`).
"""
import ctypes
import ctypes.util
import json
import math
import numbers
import operator
import os
import reprlib
import sys
import threading
import types
import weakref

import numpy as np

# The version of the package; the library it loads must be the same
# (tilec.version(); the test suite checks they agree).
__version__ = "0.15.0"
__all__ = ["compile", "explain", "pipeline", "STAGES", "Kernel", "Param", "Module", "Runtime", "TilecError", "version",
           "llvm_version", "compile_options"]

# tir_scalar (tilec/scalar.h: TIR_SCALARS order, 0 = invalid) <-> NumPy dtypes
# (bf16: ml_dtypes.bfloat16 when ml_dtypes is installed, else 2 opaque bytes)
try:
    from ml_dtypes import bfloat16 as _BF16
except ImportError:
    _BF16 = None
_SCALARS = ["bool", "i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64", "f32", "f64", "f16", "bf16"]
_DTYPES = [np.dtype(t) for t in (np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64,
                                 np.uint64, np.float32, np.float64, np.float16, _BF16 or "V2")]
_TIR_TYPE_VIEW = 4
_SONAME = "libtilec.so." + ".".join(__version__.split(".")[:2])

# What a number must be to become a scalar argument (Kernel._scalar) or a
# shape parameter (_define).  Integer types: their [min, max].  Float types:
# their largest finite value and the magnitude from which a finite number
# rounds to inf (that value plus half an ulp; for f64, float() itself
# refuses what is larger).
_INT_RANGES = {t: (int(np.iinfo(d).min), int(np.iinfo(d).max)) for t, d in zip(_SCALARS, _DTYPES) if d.kind in "iu"}
_FLOAT_LIMITS = {"f16": (65504.0, 65520.0), "bf16": (2.0 ** 128 - 2.0 ** 120, 2.0 ** 128 - 2.0 ** 119),
                 "f32": (2.0 ** 128 - 2.0 ** 104, 2.0 ** 128 - 2.0 ** 103), "f64": (1.7976931348623157e308, math.inf)}
# Python and NumPy count these as integers (numpy.timedelta64 is a NumPy
# integer), though they are no numbers to compute with.
_NOT_NUMBERS = (bool, np.bool_, np.timedelta64)


def _integer(value):
    """value as an int when it is an integer (int, a NumPy integer, anything
    with __index__) and no bool or duration; else None."""
    if isinstance(value, _NOT_NUMBERS):
        return None
    try:
        return operator.index(value)
    except TypeError:
        return None


# DLPack (dlpack.h, the unversioned "dltensor" capsule every producer
# offers): the tensor's memory is read in place through the capsule, which
# the view keeps alive (its producer frees nothing while it lives).
class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32), ("dtype", _DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


_DL_CPU = 1
# (type code, bits) -> tir_scalar name: int, uint, float, bfloat, bool
_DL_TYPES = {(0, 8): "i8", (0, 16): "i16", (0, 32): "i32", (0, 64): "i64", (1, 8): "u8", (1, 16): "u16",
             (1, 32): "u32", (1, 64): "u64", (2, 16): "f16", (2, 32): "f32", (2, 64): "f64", (4, 16): "bf16",
             (6, 8): "bool"}
_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype = ctypes.c_void_p
_capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


def _from_dlpack(obj):
    """A numpy.ndarray viewing obj's memory (obj speaks DLPack): its dtype
    (bf16 as _DTYPES has it), shape and strides; TypeError for memory off
    the CPU or an element type tilec has not."""
    device = getattr(obj, "__dlpack_device__", None)
    if device is not None and device()[0] != _DL_CPU:
        raise TypeError(f"tilec: a {type(obj).__name__} on device {device()} (tilec reads CPU memory only)")
    capsule = obj.__dlpack__()
    t = ctypes.cast(_capsule_pointer(capsule, b"dltensor"), ctypes.POINTER(_DLTensor)).contents
    if t.device.device_type != _DL_CPU:
        raise TypeError(f"tilec: a {type(obj).__name__} on DLPack device type {t.device.device_type} (CPU only)")
    name = _DL_TYPES.get((t.dtype.code, t.dtype.bits)) if t.dtype.lanes == 1 else None
    if name is None:
        raise TypeError(f"tilec: a {type(obj).__name__} of DLPack type (code {t.dtype.code}, {t.dtype.bits} bits, "
                        f"{t.dtype.lanes} lanes), which no tilec scalar is")
    dtype = _DTYPES[_SCALARS.index(name)]
    shape = tuple(t.shape[i] for i in range(t.ndim))
    strides = tuple(t.strides[i] * dtype.itemsize for i in range(t.ndim)) if t.strides else None
    count = math.prod(shape)
    if not count:
        return np.empty(shape, dtype)
    span = dtype.itemsize + sum((n - 1) * abs(st) for n, st in zip(shape, strides)) if strides else count * dtype.itemsize
    memory = (ctypes.c_char * span).from_address((t.data or 0) + t.byte_offset)
    memory.capsule = capsule  # the view's base holds the capsule, the capsule the tensor
    return np.ndarray(shape, dtype, buffer=memory, strides=strides)


def _array(value):
    """value as a numpy.ndarray sharing its memory: itself, a view through
    DLPack or the buffer protocol; None for anything else: a number (NumPy's
    scalars export buffers too), a string or bytes (an array of what?)."""
    if isinstance(value, np.ndarray):
        return value
    if hasattr(value, "__dlpack__"):
        return _from_dlpack(value)
    if isinstance(value, (np.generic, str, bytes)):
        return None
    try:
        view = memoryview(value)
    except TypeError:
        return None
    return np.asarray(view)


def _importer(value):
    """The function that makes value's array type from a DLPack producer
    (torch.from_dlpack, jax.numpy.from_dlpack), or None (NumPy's own, or a
    type tilec knows no importer of)."""
    root = type(value).__module__.split(".")[0]
    if root in ("jax", "jaxlib") and "jax" in sys.modules:
        import jax.numpy
        return jax.numpy.from_dlpack
    module = sys.modules.get(root) if root != "numpy" else None
    return getattr(module, "from_dlpack", None)  # torch.from_dlpack, and any array library's of that name


def _find_library():
    here = os.path.dirname(os.path.abspath(__file__))
    candidates = []
    if os.environ.get("TILEC_LIBRARY"):
        candidates.append(os.environ["TILEC_LIBRARY"])
    candidates += [os.path.join(here, name) for name in ("libtilec.so", _SONAME)]
    candidates.append(os.path.join(os.path.dirname(os.path.dirname(here)), "build", "libtilec.so"))
    for path in candidates:
        if os.path.exists(path):
            return path
    return ctypes.util.find_library("tilec") or _SONAME


class _Buffer(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("size_bytes", ctypes.c_size_t), ("elem", ctypes.c_int)]


class _Define(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("value", ctypes.c_int64)]


class _Diag(ctypes.Structure):
    _fields_ = [("status", ctypes.c_int), ("code", ctypes.c_char_p), ("message", ctypes.c_char_p),
                ("file", ctypes.c_char_p), ("line", ctypes.c_uint32), ("column", ctypes.c_uint32)]


class _OptionInfo(ctypes.Structure):  # tilec_option_info
    _fields_ = [("name", ctypes.c_char_p), ("expects", ctypes.c_char_p), ("flag", ctypes.c_char_p),
                ("flag_sets", ctypes.c_char_p), ("help", ctypes.c_char_p)]


# tir_write_fn: tilec_status (*)(void *user, const char *bytes, size_t n)
_WRITE_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(ctypes.c_char), ctypes.c_size_t)


class _Sink:
    """A tir_write_fn collecting what the library writes: pass .fn (kept
    alive by the sink until the call returns), read .bytes after."""

    def __init__(self):
        self.chunks = []

        def write(user, data, n):
            self.chunks.append(ctypes.string_at(data, n))
            return 0
        self.fn = _WRITE_FN(write)

    @property
    def bytes(self):
        return b"".join(self.chunks)


class _ChooseOptions(ctypes.Structure):  # tilec_choose_options
    _fields_ = [("policy", ctypes.c_int), ("progress", ctypes.c_void_p), ("user", ctypes.c_void_p),
                ("why", ctypes.c_char_p), ("why_size", ctypes.c_size_t), ("dims", ctypes.c_void_p),
                ("n_dims", ctypes.c_size_t), ("cold", ctypes.c_bool)]


class _Chosen(ctypes.Structure):  # tilec_chosen
    _fields_ = [("name", ctypes.c_char * 64), ("value", ctypes.c_int64)]


class _AotOptions(ctypes.Structure):  # tilec_aot_options
    _fields_ = [("cpu", ctypes.c_char_p), ("symbol", ctypes.c_char_p), ("source", ctypes.c_char_p)]


# The pipeline's stages in their order (tilec/pipeline.h: tilec_stage), and
# its engines (tilec_engine).
STAGES = ("flatten", "verify", "plan", "split", "lower", "emit")
_ENGINES = ("native", "xir", "reference")


class _PipelineConfig(ctypes.Structure):  # tilec_pipeline_config
    _fields_ = [("stop_after", ctypes.c_int), ("print_after", ctypes.c_uint), ("verify_after", ctypes.c_uint),
                ("modeled", ctypes.c_bool), ("modeled_workers", ctypes.c_uint32), ("explain", ctypes.c_bool),
                ("json", ctypes.c_bool), ("engine", ctypes.c_int), ("write", _WRITE_FN), ("user", ctypes.c_void_p)]


def _load():
    path = _find_library()
    try:
        lib = ctypes.CDLL(path)  # CDLL: the GIL is released during every call
    except OSError as e:
        raise ImportError(f"tilec: cannot load the library ({path}): {e}; build it with `make` "
                          "or set TILEC_LIBRARY") from None
    P, S, U32, U64, B = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_uint32, ctypes.c_uint64, ctypes.c_bool
    sig = {
        "tilec_version": ([], S), "tilec_llvm_version": ([], S),
        "tilec_context_create": ([P, ctypes.POINTER(P)], ctypes.c_int),
        "tilec_context_destroy": ([P], None),
        "tilec_diag_count": ([P], ctypes.c_size_t),
        "tilec_diag_at": ([P, ctypes.c_size_t], ctypes.POINTER(_Diag)),
        "tilec_diag_render": ([P, ctypes.c_char_p, ctypes.c_size_t], ctypes.c_size_t),
        "tilec_diag_clear": ([P], None),
        "tilec_choose_params": ([P, S, ctypes.c_size_t, S, S, ctypes.POINTER(_Define), ctypes.c_size_t, P,
                                 ctypes.POINTER(_ChooseOptions), ctypes.POINTER(_Chosen), ctypes.c_size_t,
                                 ctypes.POINTER(ctypes.c_size_t)], ctypes.c_int),
        "tir_parse": ([P, S, ctypes.c_size_t, S, ctypes.POINTER(_Define), ctypes.c_size_t, ctypes.POINTER(P)],
                      ctypes.c_int),
        "tir_module_destroy": ([P], None),
        "tir_module_func_count": ([P], ctypes.c_size_t),
        "tir_module_func": ([P, ctypes.c_size_t], P),
        "tir_module_find_func": ([P, S], P),
        "tir_func_name": ([P], S),
        "tir_func_param_count": ([P], ctypes.c_size_t),
        "tir_func_param": ([P, ctypes.c_size_t], P),
        "tir_value_type": ([P], P), "tir_value_name": ([P], S), "tir_value_read_only": ([P], B),
        "tir_type_kind_of": ([P], ctypes.c_int), "tir_type_elem": ([P], ctypes.c_int),
        "tir_type_space": ([P], P),
        "tir_space_rank": ([P], ctypes.c_size_t), "tir_space_extent": ([P, ctypes.c_size_t], U64),
        "tir_func_symbol_count": ([P], ctypes.c_size_t),
        "tir_func_symbol": ([P, ctypes.c_size_t, ctypes.POINTER(ctypes.c_int64), ctypes.POINTER(ctypes.c_int64)], S),
        "tir_func_extent_symbol": ([P, U64], ctypes.c_int),
        "tilec_compile_options_size": ([], ctypes.c_size_t),
        "tilec_compile_options_init": ([P], None),
        "tilec_compile_options_set": ([P, P, S, S], ctypes.c_int),
        "tilec_compile_options_set_runtime": ([P, P], None),
        "tilec_runtime_create": ([P, U32, ctypes.POINTER(P)], ctypes.c_int),
        "tilec_runtime_destroy": ([P], None), "tilec_runtime_workers": ([P], U32),
        "tilec_compile_option_info": ([ctypes.c_size_t], ctypes.POINTER(_OptionInfo)),
        "tilec_compile": ([P, P, P, ctypes.POINTER(P)], ctypes.c_int),
        "tilec_pipeline_config_default": ([], _PipelineConfig),
        "tilec_pipeline_run": ([P, P, P, ctypes.POINTER(_PipelineConfig), ctypes.POINTER(P)], ctypes.c_int),
        "tilec_kernel_destroy": ([P], None),
        "tilec_dispatch": ([P, P, ctypes.c_size_t, ctypes.POINTER(_Buffer)], ctypes.c_int),
        "tilec_dispatch_dims": ([P, P, ctypes.c_size_t, ctypes.POINTER(_Buffer), ctypes.c_size_t,
                                 ctypes.POINTER(ctypes.c_int64)], ctypes.c_int),
        "tilec_kernel_realization": ([P], S), "tilec_kernel_json": ([P], S),
        "tilec_kernel_plan_realization": ([P], S), "tilec_kernel_backend_realization": ([P], S),
        "tilec_kernel_width": ([P], U32), "tilec_kernel_workers": ([P], U32),
        # modules (tilec/module.h; tilec.Module, module.py)
        "tilec_module_create": ([P, S, ctypes.POINTER(P)], ctypes.c_int),
        "tilec_module_destroy": ([P], None),
        "tilec_module_add_dim": ([P, P, S, ctypes.c_int64, ctypes.c_int64, ctypes.POINTER(U32)], ctypes.c_int),
        "tilec_module_add_value": ([P, P, S, ctypes.c_int, ctypes.c_int, ctypes.POINTER(U32)], ctypes.c_int),
        "tilec_module_bind": ([P, P, U32, ctypes.POINTER(_Buffer)], ctypes.c_int),
        "tilec_module_add_step": ([P, P, P, ctypes.c_size_t, ctypes.POINTER(U32), ctypes.c_size_t, P], ctypes.c_int),
        "tilec_module_finish": ([P, P], ctypes.c_int),
        "tilec_module_run": ([P, P, ctypes.c_size_t, ctypes.POINTER(_Buffer), ctypes.c_size_t,
                              ctypes.POINTER(ctypes.c_int64)], ctypes.c_int),
        "tilec_module_step_count": ([P], ctypes.c_size_t),
        "tilec_module_arena_bytes": ([P], U64), "tilec_module_packed_bytes": ([P], U64),
        "tilec_module_pack_constants": ([P, P, B], ctypes.c_int),
        "tilec_module_time": ([P, B], None),
        "tilec_module_step": ([P, ctypes.c_size_t, ctypes.POINTER(ctypes.c_double)], S),
        "tilec_module_arg_bytes": ([P, ctypes.c_size_t, ctypes.POINTER(ctypes.c_int64)], U64),
        "tilec_module_compile_aot": ([P, P, ctypes.POINTER(_AotOptions), _WRITE_FN, P, _WRITE_FN, P], ctypes.c_int),
    }
    for name, (args, res) in sig.items():
        f = getattr(lib, name)
        f.argtypes, f.restype = args, res
    return lib


_lib = _load()


def version():
    """The library's version, "MAJOR.MINOR.PATCH"."""
    return _lib.tilec_version().decode()


def llvm_version():
    return _lib.tilec_llvm_version().decode()


def compile_options():
    """Every option `options=` takes, from the library's one option table:
    {name: (the values it reads, one line of help)}."""
    table, i = {}, 0
    while True:
        row = _lib.tilec_compile_option_info(i)
        if not row:
            return table
        table[row.contents.name.decode()] = (row.contents.expects.decode(), row.contents.help.decode())
        i += 1


class TilecError(Exception):
    """A tilec call failed.  str(e) is the diagnostics as the CLI prints them
    (location, code, message, source line and caret); e.code is the first
    diagnostic's code (e.g. "TIR-P02"), e.diagnostics all of them as dicts
    with code, message, file, line, column."""

    def __init__(self, text, diagnostics):
        super().__init__(text)
        self.diagnostics = diagnostics
        self.code = diagnostics[0]["code"] if diagnostics else None


def _when_collected(obj, destroy, *args):
    """destroy(*args) once obj is garbage (weakref.finalize, not __del__: the
    args are held until then, so a kernel's keep its context alive whatever
    cycle the collector finds both in) — but never at exit: the process's end
    frees everything anyway, and an atexit handler or a daemon thread may
    still be running a kernel then.  Returns the finalizer (calling it
    destroys now, once)."""
    finalizer = weakref.finalize(obj, destroy, *args)
    finalizer.atexit = False
    return finalizer


class _Context:
    """A tilec_context: single-threaded, and it must outlive what it made."""

    def __init__(self):
        p = ctypes.c_void_p()
        if _lib.tilec_context_create(None, ctypes.byref(p)) != 0:
            raise MemoryError("tilec: cannot create a context")
        self.ptr = p
        _when_collected(self, _lib.tilec_context_destroy, p)

    def error(self, fallback):
        n = _lib.tilec_diag_render(self.ptr, None, 0)
        buf = ctypes.create_string_buffer(n + 1)
        _lib.tilec_diag_render(self.ptr, buf, n + 1)
        diags = []
        for i in range(_lib.tilec_diag_count(self.ptr)):
            d = _lib.tilec_diag_at(self.ptr, i).contents
            diags.append({"code": (d.code or b"").decode(), "message": (d.message or b"").decode(),
                          "file": d.file.decode() if d.file else None, "line": d.line, "column": d.column})
        _lib.tilec_diag_clear(self.ptr)
        return TilecError(buf.value.decode(errors="replace").rstrip("\n") or fallback, diags)


class Param:
    """A kernel parameter: name (without %), dtype, shape, and whether the
    kernel may write it (read_only False: an output).  In a kernel with
    runtime sizes (docs/tir.md "Runtime sizes") an axis that is exactly a
    size holds its name (a str), and one that is another expression over
    them None: the call's arrays give it."""

    def __init__(self, name, dtype, shape, read_only):
        self.name, self.dtype, self.shape, self.read_only = name, np.dtype(dtype), tuple(shape), read_only

    def __repr__(self):
        return f"Param({self.name!r}, {self.dtype}, {self.shape}, {'const' if self.read_only else 'output'})"


def _define(name, value):
    """Shape parameter name=value as a tir_define: an integer of int64, the C
    API's type (tilec judges the rest: a negative extent is TIR-P10), never
    a float truncated, a string parsed or a big integer wrapped."""
    v = _integer(value)
    if v is None:
        raise TypeError(f"tilec: shape parameter {name}={reprlib.repr(value)}: not an integer "
                        f"({type(value).__name__})")
    if not _INT_RANGES["i64"][0] <= v <= _INT_RANGES["i64"][1]:
        raise ValueError(f"tilec: shape parameter {name}={reprlib.repr(value)}: not a 64-bit integer")
    return _Define(name.encode(), v)


def _source(source_or_path):
    if isinstance(source_or_path, os.PathLike) or (
            isinstance(source_or_path, str) and "\n" not in source_or_path and "{" not in source_or_path):
        path = os.fspath(source_or_path)
        with open(path, "rb") as f:
            return f.read(), path
    return source_or_path.encode(), "<string>"


def _destroy_runtime(ptr, ctx):
    """A Runtime's finalizer; ctx, which its pool allocates through, is only
    held (alive) until then."""
    _lib.tilec_runtime_destroy(ptr)


class Runtime:
    """A thread pool kernels share (compile(..., runtime=rt)): kernels run
    one after the other on one pool find its workers awake.  threads:
    workers (default TILEC_THREADS, else the cores).  It lives as long as
    the kernels compiled on it."""

    def __init__(self, threads=None):
        self._ctx = _Context()
        self._ptr = ctypes.c_void_p()
        if _lib.tilec_runtime_create(self._ctx.ptr, threads or 0, ctypes.byref(self._ptr)) != 0:
            raise self._ctx.error("tilec: cannot create a runtime")
        _when_collected(self, _destroy_runtime, self._ptr, self._ctx)

    @property
    def workers(self):
        return _lib.tilec_runtime_workers(self._ptr)

    def __repr__(self):
        return f"<tilec.Runtime workers={self.workers}>"


def compile(source_or_path, *, kernel=None, threads=None, width=None, options=None, runtime=None, cold=False,
            **params):
    """Parses, verifies, plans and compiles a kernel; returns a Kernel.

    source_or_path: TileIR text, or the path of a .tir file.  kernel: its
    name when the file has several (default: the first).  params: the shape
    parameters (R=1024, ...).  threads: workers of the kernel's own pool
    (default TILEC_THREADS, else the cores); width: the SIMD packet width
    (default: the host's).  options: further compile options by name
    (docs/python.md), e.g. {"fuse": "off", "stores": "cached"}.  runtime:
    a tilec.Runtime to dispatch on instead of a pool of the kernel's own
    (threads is then the runtime's).  cold: the chosen parameters (docs/
    tir.md "Chosen parameters") are timed with the read-only arguments
    cold, as a kernel that streams them from memory in use runs (a decode
    step's GEMV)."""
    if runtime is not None and threads is not None:
        raise TypeError("tilec.compile: give threads or runtime, not both (a runtime has its workers)")
    text, filename = _source(source_or_path)
    return Kernel(text, filename, kernel, params, _all_options(threads, width, options), runtime, cold)


class _Parsed:
    """`with _Parsed(ctx, text, filename, name, params) as f`: the module
    parsed from text (shape parameters params), f its kernel `name` (default:
    the first); the module is destroyed on leaving."""

    def __init__(self, ctx, text, filename, name, params):
        self.ctx, self.text, self.filename, self.name, self.params = ctx, text, filename, name, params
        self.module = ctypes.c_void_p()

    def __enter__(self):
        defines = (_Define * max(1, len(self.params)))(*[
            _define(k, v) for k, v in self.params.items()])
        if _lib.tir_parse(self.ctx.ptr, self.text, len(self.text), self.filename.encode(), defines, len(self.params),
                          ctypes.byref(self.module)) != 0:
            raise self.ctx.error("tilec: parse failed")
        if self.name is not None:
            f = _lib.tir_module_find_func(self.module, self.name.encode())
        else:
            f = _lib.tir_module_func(self.module, 0) if _lib.tir_module_func_count(self.module) else None
        if not f:
            _lib.tir_module_destroy(self.module)
            raise TilecError(f"tilec: no kernel {'named ' + repr(self.name) if self.name else ''} in "
                             f"{self.filename}", [])
        return f

    def __exit__(self, *exc):
        _lib.tir_module_destroy(self.module)
        return False


def _options(ctx, options):
    """A tilec_compile_options (as bytes) with `options` set by name."""
    opts = ctypes.create_string_buffer(_lib.tilec_compile_options_size())
    _lib.tilec_compile_options_init(opts)
    for key, value in options.items():
        if isinstance(value, bool):
            text_value = "1" if value else "0"
        elif isinstance(value, (list, tuple)):  # order, tiles: "2,0,1" (each item as written; tilec reads them)
            text_value = ",".join(str(v) for v in value)
        else:
            text_value = str(value)
        if _lib.tilec_compile_options_set(ctx.ptr, opts, str(key).encode(), text_value.encode()):
            raise ctx.error(f"tilec: bad option {key}={value}")
    return opts


def _all_options(threads, width, options):
    return dict(options or {}, **{k: v for k, v in (("threads", threads), ("width", width)) if v is not None})


def explain(source_or_path, *, kernel=None, threads=None, width=None, options=None, **params):
    """What the planner does with the kernel on this host, as `tilec plan
    --explain` prints it (for the real packet width and worker count): the
    chosen plan with every cost term, every candidate ranked, every
    rejection.  Same arguments as compile(); nothing is compiled (the
    pipeline stops after planning: tilec_explain)."""
    return pipeline(source_or_path, kernel=kernel, print_after="plan", stop_after="plan", explain=True,
                    threads=threads, width=width, options=options, **params)


def _stage_bits(stages):
    names = (stages,) if isinstance(stages, str) else tuple(stages)
    bits = 0
    for name in names:
        if name not in STAGES:
            raise ValueError(f"tilec: {name!r} is not a stage ({', '.join(STAGES)})")
        bits |= 1 << STAGES.index(name)
    return bits


def pipeline(source_or_path, *, kernel=None, print_after=(), stop_after="emit", verify_each=False, modeled=False,
             workers=8, engine="native", explain=False, json=False, threads=None, width=None, options=None,
             **params):
    """Runs the compile pipeline stage by stage (tilec_pipeline_run,
    docs/python.md) and returns, as text, what the stages in print_after (a
    name or several, from STAGES) made, in stage order, as `tilec
    --print-after` prints them: the TileIR, the plan (explain, json: as
    `tilec plan`), the split kernels, the XIR (as `tilec lower`), the code.
    stop_after: the last stage run.  verify_each: every stage's result
    checked by its verifier.  modeled: plan for a modeled pool of `workers`
    with packets of `width` (default 8), never this host.  engine "xir": the
    kernel made is the XIR interpreter's; "reference": the TileIR itself,
    for the reference interpreter (no plan, no lowering).  Other arguments as compile();
    the kernel made at emit is not kept (use compile())."""
    if stop_after not in STAGES:
        raise ValueError(f"tilec: {stop_after!r} is not a stage ({', '.join(STAGES)})")
    if engine not in _ENGINES:
        raise ValueError(f"tilec: engine {engine!r} is not {', '.join(map(repr, _ENGINES))}")
    n_workers = _integer(workers)
    if n_workers is None or not 0 <= n_workers < 1 << 32:
        raise ValueError(f"tilec: workers {workers!r} is not a worker count")
    text, filename = _source(source_or_path)
    ctx = _Context()
    sink = _Sink()
    config = _lib.tilec_pipeline_config_default()
    config.stop_after = STAGES.index(stop_after)
    config.print_after = _stage_bits(print_after)
    config.verify_after = (1 << len(STAGES)) - 1 if verify_each else 0
    config.modeled, config.modeled_workers = bool(modeled), n_workers
    config.engine = _ENGINES.index(engine)
    config.explain, config.json = bool(explain), bool(json)
    config.write = sink.fn
    with _Parsed(ctx, text, filename, kernel, params) as f:
        opts = _options(ctx, _all_options(threads, width, options))
        status = _lib.tilec_pipeline_run(ctx.ptr, f, opts, ctypes.byref(config), None)
    if status != 0:
        raise ctx.error("tilec: the pipeline failed")
    return sink.bytes.decode()


# Kernels are compiled in one shared context, so compiling the same kernel
# again hits tilec's in-memory cache (docs/simd.md "Kernel cache"); a
# context is single-threaded, hence the lock (re-entrant: a kernel's __del__
# may run inside a compile, when the garbage collector strikes there).
_compile_lock = threading.RLock()
_compile_ctx = None


def _shared_context():
    global _compile_ctx
    if _compile_ctx is None:
        _compile_ctx = _Context()
    return _compile_ctx


def _destroy_kernel(ptr, ctx, runtime):
    """A Kernel's finalizer; ctx, the context it was compiled in, and the
    Runtime it dispatches on (or None) are only held (alive) until then."""
    with _compile_lock:  # destroying uses the compile context
        _lib.tilec_kernel_destroy(ptr)


class Kernel:
    """A compiled kernel: call it with one NumPy array per parameter (in
    order, or by name) — or a Python number for a scalar parameter
    (`%a: f32`); an output left out or None is allocated (zeros).  Returns
    the outputs: one array, or a tuple when there are several.

    close() (or leaving `with tilec.compile(...) as k:`) releases the
    compiled code at once; the garbage collector does it otherwise.  A
    released kernel raises ValueError when used."""

    _release = None  # the finalizer destroying the tilec_kernel, once compiled
    _modules = ()  # the tilec.Modules whose steps run it (a WeakSet once one does)

    def __init__(self, text, filename, name, params, options, runtime=None, cold=False):
        self._ptr = None
        with _compile_lock:
            self._compile(text, filename, name, params, options, runtime, cold)
        self._release = _when_collected(self, _destroy_kernel, self._ptr, self._ctx, runtime)
        self._local = threading.local()  # a dispatch context per calling thread

    def _compile(self, text, filename, name, params, options, runtime, cold):
        self._ctx = _shared_context()  # outlives the kernel (the module holds a reference)
        opts = _options(self._ctx, options)
        if runtime is not None:
            _lib.tilec_compile_options_set_runtime(opts, runtime._ptr)
        self.chosen, self.chosen_how = self._choose(text, filename, name, params, opts, cold)
        params = {**params, **self.chosen}
        with _Parsed(self._ctx, text, filename, name, params) as f:
            self.name = _lib.tir_func_name(f).decode()
            self.sizes = self._sizes(f)
            self.params = [self._param(f, _lib.tir_func_param(f, i)) for i in range(_lib.tir_func_param_count(f))]
            # for the calls, once: each parameter's tir_scalar, its name when
            # it takes a number (a one-element const view: %a: f32), its index
            self._codes = [_DTYPES.index(p.dtype) + 1 for p in self.params]
            self._numbers = [_SCALARS[c - 1] if p.read_only and p.shape.count(1) == len(p.shape) else None
                             for p, c in zip(self.params, self._codes)]
            self._index = {p.name: i for i, p in enumerate(self.params)}
            k = ctypes.c_void_p()
            if _lib.tilec_compile(self._ctx.ptr, f, opts, ctypes.byref(k)) != 0:
                raise self._ctx.error("tilec: compile failed")
            self._ptr = k  # it borrows nothing from the module, which goes now

    def _choose(self, text, filename, name, params, opts, cold):
        """The kernel's chosen parameters (docs/tir.md "Chosen parameters")
        that params leave open, for this host (timed cold or warm): ({name:
        value}, how)."""
        defines = (_Define * max(1, len(params)))(*[_define(k, v) for k, v in params.items()])
        out, count, why = (_Chosen * 8)(), ctypes.c_size_t(), ctypes.create_string_buffer(512)
        co = _ChooseOptions(0, None, None, ctypes.cast(why, ctypes.c_char_p), len(why), None, 0, cold)
        if _lib.tilec_choose_params(self._ctx.ptr, text, len(text), filename.encode(),
                                    name.encode() if name is not None else None, defines, len(params), opts,
                                    ctypes.byref(co), out, len(out), ctypes.byref(count)) != 0:
            raise self._ctx.error("tilec: choosing the kernel's parameters failed")
        chosen = {out[i].name.decode(): out[i].value for i in range(count.value)}
        return chosen, why.value.decode() if chosen else ""

    @staticmethod
    def _sizes(f):
        """The runtime sizes: {name: (lo, hi)}, in declaration order."""
        sizes = {}
        for i in range(_lib.tir_func_symbol_count(f)):
            lo, hi = ctypes.c_int64(), ctypes.c_int64()
            name = _lib.tir_func_symbol(f, i, ctypes.byref(lo), ctypes.byref(hi)).decode()
            sizes[name] = (lo.value, hi.value)
        return sizes

    @staticmethod
    def _param(f, value):
        t = _lib.tir_value_type(value)
        if _lib.tir_type_kind_of(t) != _TIR_TYPE_VIEW:
            raise TilecError("tilec: only view parameters are supported from Python", [])
        space = _lib.tir_type_space(t)
        shape = []
        for i in range(_lib.tir_space_rank(space)):
            e = _lib.tir_space_extent(space, i)
            k = _lib.tir_func_extent_symbol(f, e) if e >> 63 else -1  # TIR_EXTENT_SYMBOLIC
            shape.append(e if not e >> 63 else _lib.tir_func_symbol(f, k, None, None).decode() if k >= 0 else None)
        name = _lib.tir_value_name(value)
        return Param(name.decode() if name else "", _DTYPES[_lib.tir_type_elem(t) - 1], shape,
                     _lib.tir_value_read_only(value))

    def _scalar(self, i, p, elem, value):
        """value as the one element of scalar parameter p (TileIR type elem),
        exactly as given — never wrapped, truncated, parsed or overflowed to
        inf: a bool takes True, False, 0 or 1 (as `tilec run --arg`); an
        integer type an integer in its range; a float type a real number
        that stays finite (inf and nan given as such pass)."""
        where = f"{self.name}: '{p.name}' ({elem}) takes"
        if elem == "bool":
            v = bool(value) if isinstance(value, (bool, np.bool_)) else _integer(value)
            if v not in (0, 1):
                raise self._refusal(v is None, f"{where} True, False, 0 or 1", value)
        elif elem in _INT_RANGES:
            v, (lo, hi) = _integer(value), _INT_RANGES[elem]
            if v is None:
                raise self._refusal(True, f"{where} an integer", value)
            if not lo <= v <= hi:
                raise self._refusal(False, f"{where} an integer in [{lo}, {hi}]", value)
        elif elem == "bf16" and _BF16 is None:
            raise TypeError(f"{where} a numpy.ndarray of dtype V2 (its bits) unless ml_dtypes is installed")
        else:
            if isinstance(value, _NOT_NUMBERS) or not isinstance(value, numbers.Real):
                raise self._refusal(True, f"{where} a real number", value)
            largest, overflows = _FLOAT_LIMITS[elem]
            try:
                v = float(value)
            except OverflowError:  # an integer or fraction beyond f64
                v = math.inf
            if abs(v) >= overflows and not (math.isinf(v) and value == v):
                raise self._refusal(False, f"{where} a real number within ±{largest!r} (or an inf or nan)", value)
        cell = self._state().scalars[i]  # this thread's, reused: no allocation per call
        cell.fill(v)
        return cell

    @staticmethod
    def _refusal(wrong_type, takes, value):
        """The error for a scalar argument: TypeError for the wrong kind of
        value (a numpy.ndarray would do too), ValueError for the right kind
        out of range."""
        if wrong_type:
            return TypeError(f"{takes} (or a numpy.ndarray), not {type(value).__name__} {reprlib.repr(value)}")
        return ValueError(f"{takes}, not {reprlib.repr(value)}")

    def _state(self):
        """This thread's dispatch state, made at its first call and reused by
        every later one: its context, the argument table, the sizes and a
        one-element array per scalar parameter."""
        state = getattr(self._local, "state", None)
        if state is None:
            state = self._local.state = types.SimpleNamespace(
                ctx=_Context(), bufs=(_Buffer * max(1, len(self.params)))(),
                dims=(ctypes.c_int64 * max(1, len(self.sizes)))(),
                scalars=[np.empty(p.shape, p.dtype) if n else None for p, n in zip(self.params, self._numbers)])
        return state

    def _dims(self, values, named):
        """The runtime sizes of a call, a value per size in declaration order:
        each from a keyword (R=5) or from the shape of an array whose axis is
        exactly that size; two that disagree are an error."""
        dims = {}
        for key, value in named.items():
            if key in self.sizes and key not in self._index:
                dims[key] = _integer(value)
                if dims[key] is None:
                    raise TypeError(f"{self.name}: runtime size {key} takes an integer, not {reprlib.repr(value)}")
        for p, a in zip(self.params, values):
            if not isinstance(a, np.ndarray) or a.ndim != len(p.shape):
                continue
            for axis, n in zip(p.shape, a.shape):
                if isinstance(axis, str):
                    if dims.setdefault(axis, n) != n:
                        raise ValueError(f"{self.name}: runtime size {axis} is {dims[axis]}, but '{p.name}' "
                                         f"has shape {a.shape}")
        for name, (lo, hi) in self.sizes.items():
            if name not in dims:
                raise TypeError(f"{self.name}: runtime size {name} is not given (pass an array it shapes, or {name}=N)")
            if not lo <= dims[name] <= hi:
                raise ValueError(f"{self.name}: runtime size {name}={dims[name]} is outside its range {lo}..{hi}")
        return [dims[name] for name in self.sizes]

    def _shape(self, p, dims):
        """p's shape at these sizes (None: an axis that is no size alone)."""
        named = dict(zip(self.sizes, dims))
        return tuple(named[e] if isinstance(e, str) else e for e in p.shape)

    def _bind(self, args, named):
        if len(args) > len(self.params):
            raise TypeError(f"{self.name}: {len(self.params)} parameters, {len(args)} arguments given")
        values = list(args) + [None] * (len(self.params) - len(args))
        for key, value in named.items():
            if key in self.sizes and key not in self._index:
                continue  # a runtime size (_dims)
            if key not in self._index:
                sizes = f"; runtime sizes: {', '.join(self.sizes)}" if self.sizes else ""
                raise TypeError(f"{self.name}: no parameter named '{key}' "
                                f"(parameters: {', '.join(p.name for p in self.params)}{sizes})")
            if values[self._index[key]] is not None:
                raise TypeError(f"{self.name}: parameter '{key}' given twice")
            values[self._index[key]] = value
        given = [None if v is None else _array(v) for v in values]  # views of the caller's memory
        dims = self._dims(given, named) if self.sizes else []
        arrays = []
        for i, (p, number, v, a) in enumerate(zip(self.params, self._numbers, values, given)):
            shape = self._shape(p, dims) if dims else p.shape
            if v is None:
                if p.read_only:
                    raise TypeError(f"{self.name}: missing input '{p.name}' ({p.dtype}{list(shape)})")
                if None in shape:
                    raise TypeError(f"{self.name}: give output '{p.name}': its shape {list(p.shape)} is not one "
                                    "the runtime sizes name axis by axis")
                a = np.zeros(shape, p.dtype)
            elif number and a is None:
                a = self._scalar(i, p, number, v)
            elif a is None:
                raise TypeError(f"{self.name}: '{p.name}' must be an array (numpy.ndarray, or one that speaks DLPack "
                                f"or the buffer protocol), not {type(v).__name__}")
            elif a.dtype != p.dtype:
                raise TypeError(f"{self.name}: '{p.name}' has dtype {a.dtype}, the kernel takes {p.dtype}")
            elif len(a.shape) != len(shape) or any(n is not None and n != m for n, m in zip(shape, a.shape)):
                raise ValueError(f"{self.name}: '{p.name}' has shape {a.shape}, the kernel takes {shape}")
            elif not a.flags.c_contiguous:
                raise ValueError(f"{self.name}: '{p.name}' is not C-contiguous (pass a contiguous copy)")
            elif not p.read_only and not a.flags.writeable:
                raise ValueError(f"{self.name}: output '{p.name}' is read-only")
            arrays.append(a)
        return arrays, dims, values

    def _handle(self):
        """The tilec_kernel, or the error of using a released one (which
        would otherwise hand tilec freed memory)."""
        if not self._ptr:
            raise ValueError(f"tilec: kernel {self.name} was released (close())")
        return self._ptr

    def __call__(self, *args, **named):
        ptr = self._handle()
        arrays, dims, values = self._bind(args, named)
        state = self._state()
        bufs, sized = state.bufs, state.dims
        for i, (a, code) in enumerate(zip(arrays, self._codes)):
            b = bufs[i]
            b.data, b.size_bytes, b.elem = a.ctypes.data if a.size else None, a.nbytes, code
        for i, n in enumerate(dims):
            sized[i] = n
        if _lib.tilec_dispatch_dims(state.ctx.ptr, ptr, len(arrays), bufs, len(dims), sized) != 0:
            raise state.ctx.error(f"tilec: {self.name} failed")
        outs = [self._result(a, v, values) for p, a, v in zip(self.params, arrays, values) if not p.read_only]
        return outs[0] if len(outs) == 1 else tuple(outs)

    @staticmethod
    def _result(array, given, values):
        """An output as the caller sees it: the object the caller passed, or
        the array the call allocated, as the type of the first argument
        whose library imports DLPack (else numpy.ndarray; an array NumPy
        cannot export, bf16 without ml_dtypes, stays one)."""
        if given is not None:
            return given
        importer = next((f for f in map(_importer, (v for v in values if v is not None)) if f), None)
        if importer is None:
            return array
        try:
            return importer(array)
        except (TypeError, ValueError, RuntimeError, BufferError):
            return array

    @property
    def realization(self):
        """The realization items ("key=value; ...", docs/facade.md)."""
        return _lib.tilec_kernel_realization(self._handle()).decode()

    @property
    def json(self):
        """The same items as a JSON object (text)."""
        return _lib.tilec_kernel_json(self._handle()).decode()

    @property
    def metadata(self):
        """kernel.json parsed into a dict."""
        return json.loads(self.json)

    @property
    def plan(self):
        """The planner's and the lowering's realization: the chosen plan."""
        return _lib.tilec_kernel_plan_realization(self._handle()).decode()

    @property
    def backend(self):
        """The SIMD backend's realization."""
        return _lib.tilec_kernel_backend_realization(self._handle()).decode()

    @property
    def width(self):
        return _lib.tilec_kernel_width(self._handle())

    @property
    def workers(self):
        return _lib.tilec_kernel_workers(self._handle())

    def __repr__(self):
        state = f"W={self.width}" if self._ptr else "released"
        return f"<tilec.Kernel {self.name}({', '.join(map(repr, self.params))}) {state}>"

    def close(self):
        """Releases the compiled code now; again is harmless.  Not while
        another thread is calling the kernel, nor while a live
        tilec.Module runs it (ValueError: close the module first)."""
        users = [m for m in self._modules if m._ptr]
        if users and self._ptr:
            raise ValueError(f"tilec: kernel {self.name} is a step of module {users[0].name}; close the module first")
        self._ptr = None
        if self._release:
            self._release()  # runs the finalizer once; later calls do nothing

    # An explicit k.__del__() is close() too, not a destruction behind a
    # live handle; when the garbage collector calls it, it does what the
    # finalizer would have done.
    __del__ = close

    def __enter__(self):
        self._handle()
        return self

    def __exit__(self, *exc):
        self.close()
        return False


from .module import Module, Value  # noqa: E402  (it builds on what is above)
