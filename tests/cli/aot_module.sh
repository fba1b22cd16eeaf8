# Modules compiled ahead of time (docs/modules.md "Ahead of time"): the tiny
# Llama decoder's prefill and decode modules (weights as f32, then int8
# with their scales), written by Module.compile_aot (tests/aot/make_module.py)
# with the runs the same modules made compiled in that process; then
# tests/aot/module_program.c, linked with both objects against the runtime
# library (shared: no LLVM, ldd), binds the constants by name, replays the
# runs and finds every output bit for bit the same, and meets the refusals
# (an unbound constant, the argument count, a size out of range, a short
# argument naming its step, a constant of another type or name).  Header:
# the create function and the values.
source "$(dirname "$0")/common.bash" "$@"

BUILD=$(cd "$(dirname "$TILEC")" && pwd)
SRC=$(cd "$SRC" && pwd)
CC=${CC:-cc}
command -v "$CC" >/dev/null || { echo "note: no C compiler ($CC): skipped"; finish; exit 0; }
skip_in_sanitizer_build "Python cannot load its libtilec.so here"
PY=/usr/bin/python3
"$PY" -c 'import numpy' 2>/dev/null || PY=python3

for weights in f32 q8; do
  out=$WORK/$weights
  expect 0 env TILEC_LIBRARY="$BUILD/libtilec.so" PYTHONPATH="$SRC/python" "$PY" "$SRC/tests/aot/make_module.py" \
    "$out" $weights || continue
  contains "$out/decode_m.h" '^tilec_status decode_m_create\(tilec_context \*ctx, tilec_aot_module \*\*out\);$'
  contains "$out/decode_m.h" 'Sizes \(dims of tilec_aot_module_run, in order\): L in 1\.\.64$'
  contains "$out/prefill_m.h" 'Sizes .*: T in 1\.\.64, L in 1\.\.64$'
  contains "$out/decode_m.h" '^ \*   output    k0 f32 \(float\), 8192 bytes$'
  expect 0 "$CC" -std=c11 -Wall -Werror -I"$SRC/include" -I"$out" "$SRC/tests/aot/module_program.c" \
    "$out/prefill_m.o" "$out/decode_m.o" -L"$BUILD" -ltilec_rt -Wl,-rpath,"$BUILD" -lsleef -lpthread -lm \
    -o "$out/program" || continue
  if command -v ldd >/dev/null; then
    ldd "$out/program" >"$WORK/ldd"
    lacks "$WORK/ldd" 'LLVM'
  fi
  (TILEC_THREADS=2 "$out/program" "$out") >"$WORK/out" 2>"$WORK/err" ||
    fail "module_program ($weights) failed: $(head -c 2000 "$WORK/err")"
  contains "$WORK/out" '^prefill ok$'
  contains "$WORK/out" '^decode ok$'
done
contains "$WORK/q8/decode_m.h" 'constant  model\.layers\.0\.self_attn\.q_proj\.weight#1 f32'
finish
