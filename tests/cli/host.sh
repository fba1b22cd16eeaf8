# host.sh — `tilec host` and --host (docs/cli.md "Host description"): each
# profile as the native commands see it, overrides, the environment and the
# option agreeing, malformed descriptions refused (usage error for --host,
# TILEC-O02 through the facade), and one plan under two profiles.
source "$(dirname "$0")/common.bash" "$@"

expect 0 "$TILEC" host --host zen4 && {
  contains "$WORK/out" '^host: zen4$'
  contains "$WORK/out" '^packet width: 16 f32 lanes, 32 vector registers$'
  contains "$WORK/out" '^caches: L1d 32 KiB, L2 1 MiB, L3 32 MiB$'
  contains "$WORK/out" '^cores: 2$'
  contains "$WORK/out" '^dot products: bf16 pairs \(vdpbf16ps\), int8 quads \(vpdpbusd, vpdpwssd\)$'
  contains "$WORK/out" '^code generation: znver4 '
}
# a -FEATURE item: gone from the code generation and the plans
expect 0 "$TILEC" host --host zen4,-avx512bf16 && {
  contains "$WORK/out" '^dot products: int8 quads \(vpdpbusd, vpdpwssd\)$'
  lacks "$WORK/out" '\+avx512bf16'
}
expect 2 "$TILEC" host --host zen4,-AVX2 && contains "$WORK/err" "'-AVX2' is not -FEATURE"
expect 0 "$TILEC" host --host avx2-laptop && contains "$WORK/out" '^dot products: none$'
# the AVX2 path on any machine: no AVX-512 feature is enabled
expect 0 "$TILEC" host --host avx2-laptop && {
  contains "$WORK/out" '^packet width: 8 f32 lanes, 16 vector registers$'
  contains "$WORK/out" '^caches: L1d 48 KiB, L2 1280 KiB, L3 24 MiB$'
  contains "$WORK/out" '^code generation: alderlake .*\+avx2'
  lacks "$WORK/out" 'avx512'
}
expect 0 env TILEC_HOST=xeon-spr,l2=3M,cores=6 "$TILEC" host && {
  contains "$WORK/out" '^host: xeon-spr,l2=3M,cores=6$'
  contains "$WORK/out" '^caches: L1d 48 KiB, L2 3 MiB, L3 105 MiB$'
  contains "$WORK/out" '^cores: 6$'
}
expect 0 "$TILEC" host --host native && contains "$WORK/out" '^host: native$'
for bad in zen9 zen4,l2=abc zen4,cores=0 zen4,ways=8; do
  expect 2 "$TILEC" host --host "$bad" && contains "$WORK/err" "host '$bad'"
  expect 2 "$TILEC" run "$SRC/examples/softmax.tir" --host "$bad" && contains "$WORK/err" "--host: host '$bad'"
done
expect 1 env TILEC_HOST=zen9 "$TILEC" run "$SRC/examples/softmax.tir" &&
  contains "$WORK/err" "error\[TILEC-O02\]: TILEC_HOST: host 'zen9': unknown host 'zen9' \(native, zen4, zen5, xeon-spr, avx2-laptop\)"
expect 2 "$TILEC" run "$SRC/examples/softmax.tir" --xir --host zen4 && contains "$WORK/err" '--host is for native execution'
expect 2 "$TILEC" host extra && contains "$WORK/err" "unexpected argument 'extra'"
expect 0 "$TILEC" host --help && contains "$WORK/out" '^usage: tilec host'

# the profile, not the machine, decides the plan: W and workers follow it, and both runs match the reference
expect 0 "$TILEC" run "$SRC/examples/softmax.tir" --check --host avx2-laptop &&
  contains "$WORK/out" 'native \(W=8, 4 workers\)' && contains "$WORK/out" 'vs reference: .*ok'
expect 0 "$TILEC" run "$SRC/examples/softmax.tir" --check --host zen4,cores=1 &&
  contains "$WORK/out" 'native \(W=16, 1 workers\)' && contains "$WORK/out" 'vs reference: .*ok'
finish
