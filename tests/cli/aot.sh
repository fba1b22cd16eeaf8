# Ahead-of-time objects (docs/aot.md): `tilec compile` of these kernels —
# softmax (plain), gemm with --pack on for --cpu x86-64-v3 under another
# name, attention_gqa with --split on, rmsnorm fused with an unfused twin,
# a kernel with scalar parameters, f16/bf16 conversions for x86-64-v2 (no
# F16C: integer rounding) and for this CPU, decode attention with a runtime
# KV length (one object, every bucket) — and one that faults; their headers
# declare the typed entry points; tests/aot/program.c links the objects
# against the runtime library (shared, then static) and checks each result
# against the reference interpreter's (`tilec run --reference --out`); the
# program needs no LLVM (ldd).  Then: a damaged descriptor is TILEC-AOT10,
# an object enabling a CPU feature this machine lacks or the runtime does
# not know TILEC-AOT11, an unknown CPU SIMD-O05, a symbol that is no C
# identifier or one of the C library's (free) TILEC-AOT01,
# a missing -o a usage error, and so is an output that names the source or
# the other output (nothing written); an output that cannot be written
# leaves the other whole.
source "$(dirname "$0")/common.bash" "$@"

BUILD=$(cd "$(dirname "$TILEC")" && pwd)
TILEC=$BUILD/$(basename "$TILEC") # some checks run in another directory
SRC=$(cd "$SRC" && pwd)
CC=${CC:-cc}
command -v "$CC" >/dev/null || { echo "note: no C compiler ($CC): skipped"; finish; exit 0; }
skip_in_sanitizer_build "the ahead-of-time programs are not linked here"


# aot NAME FILE PARAMS [tilec compile options…]: the reference's inputs and
# outputs (NAME.P.npy for each parameter P in PARAMS), the object and header.
aot() {
  local name=$1 file=$2 params=$3
  shift 3
  local defines=() outs=() a
  for a in "$@"; do case $a in -D*) defines+=("$a") ;; esac; done
  for a in $params; do outs+=(--out "$a=$WORK/$name.$a.npy"); done
  expect 0 "$TILEC" run "$file" --reference --seed 5 "${defines[@]}" "${outs[@]}" "${ARGS[@]}" || return
  expect 0 "$TILEC" compile "$file" "$@" -o "$WORK/$name.o" --header "$WORK/$name.h" &&
    contains "$WORK/out" "\.o \([0-9]+ bytes\), .*\.h$"
}
ARGS=()
aot softmax "$SRC/examples/softmax.tir" "X Y"
aot gemm "$SRC/examples/gemm.tir" "A B C" --pack on --cpu x86-64-v3 --name gemm_v3 --threads 2
mv "$WORK/gemm.o" "$WORK/gemm_v3.o" && mv "$WORK/gemm.h" "$WORK/gemm_v3.h"
aot gemm_bf16 "$SRC/examples/gemm_bf16.tir" "A B C" --pack on
aot attention_gqa "$SRC/examples/attention_gqa.tir" "Q K V O" --split on
aot rmsnorm "$SRC/examples/rmsnorm.tir" "X G Y" -DR=1 -DW=1030 --fuse on
# a kernel with runtime sizes: one object for Lk in 1..32768, the
# reference's outputs at three lengths
expect 0 "$TILEC" compile "$SRC/examples/dynamic/decode_attention.tir" -D Hkv=1 --threads 2 --name decode \
  -o "$WORK/decode.o" --header "$WORK/decode.h"
for lk in 1 17 300 5000; do
  expect 0 "$TILEC" run "$SRC/examples/dynamic/decode_attention.tir" -D Hkv=1 --reference --seed 5 --dim Lk=$lk \
    --out "Q=$WORK/decode$lk.Q.npy" --out "K=$WORK/decode$lk.K.npy" --out "V=$WORK/decode$lk.V.npy" \
    --out "O=$WORK/decode$lk.O.npy"
done
contains "$WORK/decode.h" '^int decode\(const float \*Q, const float \*K, const float \*V, float \*O, int64_t Lk\);$'
contains "$WORK/decode.h" '^tilec_status decode_dispatch\(.*const tilec_buffer \*args, size_t n_dims, const int64_t \*dims\);$'
contains "$WORK/decode.h" 'K +f32\[1, 1, Lk, 64\]  read, its bytes at the runtime sizes'
contains "$WORK/decode.h" 'Lk in 1\.\.32768'
# runtime sizes and packing: gemm over M in 1..4096 packs A's rows (its
# panels laid out at each call's M) and B
expect 0 "$TILEC" compile "$SRC/examples/dynamic/gemm_rows.tir" --pack on --threads 2 --name gemm_rows \
  -o "$WORK/gemm_rows.o" --header "$WORK/gemm_rows.h"
for m in 1 9 300 1000; do
  expect 0 "$TILEC" run "$SRC/examples/dynamic/gemm_rows.tir" --reference --seed 3 --dim M=$m \
    --out "A=$WORK/gemm_rows$m.A.npy" --out "B=$WORK/gemm_rows$m.B.npy" --out "C=$WORK/gemm_rows$m.C.npy"
done
ARGS=(--arg a=2 --arg b=0.5 --arg k=-4)
aot axpb "$SRC/tests/kernels/axpb.tir" "X Y" -DN=1000
ARGS=()
expect 0 "$TILEC" compile "$SRC/tests/kernels/elementwise.tir" --kernel scalar_ops -o "$WORK/scalar_ops.o" \
  --header "$WORK/scalar_ops.h"
for cpu in x86-64-v2 native; do
  name=conv_${cpu#x86-64-}
  expect 0 "$TILEC" compile "$SRC/tests/kernels/half_conv.tir" -D N=4099 --cpu $cpu --name "$name" \
    -o "$WORK/$name.o" --header "$WORK/$name.h"
done
contains "$WORK/conv_v2.h" '^int conv_v2\(const float \*X, const double \*D, const int32_t \*I, uint16_t \*H, uint16_t \*B, float \*Y, double \*Z\);$' 

# the headers: typed entry points, a value per scalar parameter
contains "$WORK/softmax.h" '^int softmax\(const float \*X, float \*Y\);$'
contains "$WORK/softmax.h" '^tilec_status softmax_dispatch\(tilec_context \*ctx, tilec_runtime \*rt, size_t n, const tilec_buffer \*args\);$'
contains "$WORK/gemm_v3.h" '^int gemm_v3\(const float \*A, const float \*B, float \*C\);$'
contains "$WORK/gemm_v3.h" 'target x86-64-v3, W=8, planned for 2 workers'
contains "$WORK/axpb.h" '^int axpb\(float a, const float \*X, float b, int32_t k, float \*Y\);$'
contains "$WORK/scalar_ops.h" '^int scalar_ops\(const float \*X, int32_t \*I, float \*Y\);$'

OBJECTS=("$WORK"/{softmax,gemm_v3,gemm_bf16,attention_gqa,rmsnorm,axpb,scalar_ops,conv_v2,conv_native,decode,gemm_rows}.o)
build_program() { # OUT [library arguments…]
  local out=$1
  shift
  expect 0 "$CC" -std=c11 -Wall -Werror -I"$SRC/include" -I"$WORK" "$SRC/tests/aot/program.c" "${OBJECTS[@]}" \
    "$@" -lsleef -lpthread -lm -o "$out"
}
check_program() { # PROGRAM
  (cd "$WORK" && TILEC_THREADS=2 "$1") >"$WORK/out" 2>"$WORK/err" || fail "$1 failed: $(cat "$WORK/out" "$WORK/err")"
  for c in softmax gemm_v3 gemm_bf16 attention_gqa rmsnorm axpb fault checked last_error half decode gemm_rows; do
    contains "$WORK/out" "^$c ok$"
  done
  contains "$WORK/out" '^threads ok \(2 workers\)$'
}
if build_program "$WORK/shared" -L"$BUILD" -ltilec_rt -Wl,-rpath,"$BUILD"; then
  check_program "$WORK/shared"
  if command -v ldd >/dev/null; then
    ldd "$WORK/shared" >"$WORK/ldd"
    contains "$WORK/ldd" 'libtilec_rt\.so'
    lacks "$WORK/ldd" 'LLVM'
  fi
fi
build_program "$WORK/static" "$BUILD/libtilec_rt.a" && check_program "$WORK/static"

# a damaged descriptor (its magic) is refused at the first call
python3 - "$WORK/softmax.o" "$WORK/damaged.o" <<'PY'
import struct, sys
data = bytearray(open(sys.argv[1], "rb").read())
magic = struct.pack("<Q", 0x544c43414f540005)
at = data.find(magic)
assert at >= 0 and data.find(magic, at + 1) < 0, "the magic is in the object once"
data[at] ^= 0xff
open(sys.argv[2], "wb").write(data)
PY
OBJECTS=("$WORK/damaged.o" "$WORK"/{gemm_v3,gemm_bf16,attention_gqa,rmsnorm,axpb,scalar_ops,conv_v2,conv_native,decode,gemm_rows}.o)
if build_program "$WORK/damaged" "$BUILD/libtilec_rt.a"; then
  (cd "$WORK" && ./damaged softmax) >"$WORK/out" 2>&1 && fail "a damaged object ran"
  contains "$WORK/out" 'error\[TILEC-AOT10\]: the object was not made for this runtime'
fi

# every CPU feature the object may use is checked at its first call: an
# object for this machine (not a host profile: its features as they are)
# whose list is edited to enable a feature this machine lacks, or one the
# runtime does not know, is refused naming it (TILEC-AOT11)
if expect 0 env -u TILEC_HOST "$TILEC" compile "$SRC/examples/softmax.tir" -o "$WORK/native.o"; then
  for how in lacks unknown; do
    feature=$(python3 - "$WORK/native.o" "$WORK/$how.o" "$how" <<'PY'
import re, sys
data = bytearray(open(sys.argv[1], "rb").read())
found = list(re.finditer(rb"\+64bit,\+cmov,[-+a-z0-9.,]+", data))
assert len(found) == 1, "the feature list is in the object once"
at, features = found[0].start(), found[0].group(0).decode()
off = next(t for t in features.split(",") if t.startswith("-") and t != "-sse-unaligned-mem")
at += ("," + features + ",").index("," + off + ",")
name = off[1:] if sys.argv[3] == "lacks" else "q" * (len(off) - 1)
data[at:at + len(off)] = ("+" + name).encode()
open(sys.argv[2], "wb").write(data)
print(name)
PY
    ) || { fail "cannot edit the feature list of native.o"; continue; }
    OBJECTS=("$WORK/$how.o" "$WORK"/{gemm_v3,gemm_bf16,attention_gqa,rmsnorm,axpb,scalar_ops,conv_v2,conv_native,decode,gemm_rows}.o)
    build_program "$WORK/$how" "$BUILD/libtilec_rt.a" || continue
    (cd "$WORK" && "./$how" softmax) >"$WORK/out" 2>&1 && fail "an object enabling $feature ($how) ran"
    if [ $how = lacks ]; then
      contains "$WORK/out" "error\[TILEC-AOT11\]: the object was compiled for .*, this CPU lacks: $feature \("
    else
      contains "$WORK/out" "error\[TILEC-AOT11\]: .* CPU features this runtime cannot check: $feature \("
    fi
  done
fi

# the target CPU decides the instructions: x86-64-v2 uses no ymm/zmm
# registers, x86-64-v4 zmm ones
if command -v objdump >/dev/null; then
  for cpu in x86-64-v2 x86-64-v4; do
    expect 0 "$TILEC" compile "$SRC/examples/softmax.tir" --cpu $cpu -o "$WORK/$cpu.o" &&
      objdump -d "$WORK/$cpu.o" >"$WORK/$cpu.s"
  done
  lacks "$WORK/x86-64-v2.s" '%[yz]mm'
  contains "$WORK/x86-64-v4.s" '%zmm'
fi

# refusals
expect 1 "$TILEC" compile "$SRC/examples/softmax.tir" --cpu pentium -o "$WORK/x.o" &&
  contains "$WORK/err" "error\[SIMD-O05\]: unknown target CPU 'pentium'"
expect 1 "$TILEC" compile "$SRC/examples/softmax.tir" --name 2fast -o "$WORK/x.o" &&
  contains "$WORK/err" "error\[TILEC-AOT01\]: '2fast' is not a C identifier"
expect 1 "$TILEC" compile "$SRC/examples/softmax.tir" --name free -o "$WORK/x.o" &&
  contains "$WORK/err" "error\[TILEC-AOT01\]: 'free' .* a library already \(the C or math library"
[ -e "$WORK/x.o" ] && fail "a refused compile wrote its object"
expect 2 "$TILEC" compile "$SRC/examples/softmax.tir" && contains "$WORK/err" 'missing -o FILE.o'

# an output naming the source or the other output is a usage error and
# nothing is written: by the same path, another spelling of it, a hard link,
# a symbolic link, or (not there yet) the same new file for both
mkdir "$WORK/same" && cp "$SRC/examples/softmax.tir" "$WORK/same/my.tir"
ln "$WORK/same/my.tir" "$WORK/same/hard.o"
ln -s my.tir "$WORK/same/link.h"
same_file_refused() { # WHAT ARGS…: exit 2 naming WHAT, the source intact, no k.o/k.h
  local what=$1
  shift
  expect 2 "$TILEC" compile "$@" && contains "$WORK/err" "^tilec compile: error: .* is the $what" &&
    contains "$WORK/err" "Try 'tilec compile --help'"
  cmp -s "$WORK/same/my.tir" "$SRC/examples/softmax.tir" || fail "the source was changed: $*"
  [ ! -e "$WORK/same/k.o" ] && [ ! -e "$WORK/same/k.h" ] || fail "a refused compile wrote a file: $*"
  [ "$(ls -A "$WORK/same" | wc -l)" -eq 3 ] || fail "a refused compile left a file: $(ls -A "$WORK/same")"
}
same_file_refused "source file" "$WORK/same/my.tir" -o "$WORK/same/my.tir"
same_file_refused "source file" "$WORK/same/my.tir" -o "$WORK/same/k.o" --header "$WORK/same/my.tir"
same_file_refused "source file" "$WORK/same/my.tir" -o "$WORK/same/../same/./my.tir"
same_file_refused "source file" "$WORK/same/my.tir" -o "$WORK/same/hard.o"
same_file_refused "source file" "$WORK/same/my.tir" -o "$WORK/same/k.o" --header "$WORK/same/link.h"
same_file_refused "object file" "$WORK/same/my.tir" -o "$WORK/same/k.o" --header "$WORK/same/k.o"
cd "$WORK/same"
same_file_refused "object file" my.tir -o k.o --header ./k.o
same_file_refused "source file" ../same/my.tir -o my.tir
cd - >/dev/null

# each output replaced whole or not at all: an output that cannot be written
# fails the compile (exit 1) and leaves the other file whole, no temporary
# file behind; the object is written first
printf 'old header\n' >"$WORK/same/k.h"
expect 1 "$TILEC" compile "$WORK/same/my.tir" -o "$WORK/same/none/k.o" --header "$WORK/same/k.h" &&
  contains "$WORK/err" 'TILEC-IO01'
[ "$(cat "$WORK/same/k.h")" = "old header" ] || fail "a failed compile changed the header"
printf 'old object\n' >"$WORK/same/k.o"
expect 1 "$TILEC" compile "$WORK/same/my.tir" -o "$WORK/same/k.o" --header "$WORK/same/none/k.h" &&
  contains "$WORK/err" 'TILEC-IO01'
head -c 4 "$WORK/same/k.o" | grep -q 'ELF' || fail "the object written before the header failed is not whole"
[ "$(ls -A "$WORK/same" | sort | tr '\n' ' ')" = "hard.o k.h k.o link.h my.tir " ] ||
  fail "a failed compile left a file: $(ls -A "$WORK/same")"
finish
