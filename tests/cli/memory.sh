# run and bench sum the buffers they must allocate (twice with --check and
# --xir: the reference works on a copy) and refuse up front what cannot fit,
# naming the total and the available memory (TILEC-CLI05), instead of being
# killed while zero-filling them.
source "$(dirname "$0")/common.bash" "$@"
GEMM="$SRC/examples/gemm.tir"
big=(-D M=32768 -D N=32768 -D K=32768) # A, B and C of 4 GiB each: 12 GiB

# Under a 3 GB address-space limit (the old tilec was OOM-killed without a
# message, or zero-filled until the limit).
if limits_work -v 3000000 && limits_work -d 3000000; then
  for engine in --native --reference; do
    expect 1 limited -v 3000000 "$TILEC" run "$GEMM" "${big[@]}" $engine &&
      contains "$WORK/err" '^error\[TILEC-CLI05\]: not enough memory: the buffers of this run \(3 parameters\) need 12884901888 bytes \(12\.0 GiB\), but only [0-9]+ bytes \([0-9.]+ [KMG]iB\) are available \(RLIMIT_AS \(ulimit -v\) less the address space in use\); nothing was allocated$'
  done
  for engine in --check --xir; do
    expect 1 limited -v 3000000 "$TILEC" run "$GEMM" "${big[@]}" $engine &&
      contains "$WORK/err" 'TILEC-CLI05.*\(3 parameters, twice: the reference interpreter works on a copy\) need 25769803776 bytes \(24\.0 GiB\)'
  done
  expect 1 limited -v 3000000 "$TILEC" bench "$GEMM" "${big[@]}" && contains "$WORK/err" 'TILEC-CLI05.*need 12884901888 bytes'
  # The data-segment limit counts too.
  expect 1 limited -d 3000000 "$TILEC" run "$GEMM" "${big[@]}" --reference &&
    contains "$WORK/err" 'TILEC-CLI05.*RLIMIT_DATA \(ulimit -d\) less the data segment in use'
  # What fits still runs under the limit, natively and checked.
  expect 0 limited -v 3000000 "$TILEC" run "$GEMM" --check && contains "$WORK/out" '%C vs reference: .*, ok$'
fi
# With no limit the physical memory is the bound: 12 TiB fits no test machine.
expect 1 "$TILEC" run "$GEMM" -D M=1048576 -D N=1048576 -D K=1048576 --reference &&
  contains "$WORK/err" 'TILEC-CLI05.*need 13194139533312 bytes \(12\.0 TiB\).*\(MemAvailable in /proc/meminfo|free physical pages\)'
# A size past 64 bits is still the overflow diagnostic.
expect 1 "$TILEC" run "$SRC/tests/kernels/cli_copy.tir" --kernel cli_copy -D M=4611686018427387904 &&
  contains "$WORK/err" 'TILEC-CLI02.*too large to allocate'
finish
