# The command line's compile options come from the library's option table
# (src/options/options.def): every flag there is listed in the help of the
# commands that take it and accepted by them; a flag only native execution
# takes is unknown to the planning commands; malformed values are usage
# errors with the flag's own wording.
source "$(dirname "$0")/common.bash" "$@"
K="$SRC/tests/kernels/cli_copy.tir"
native_only='^--(threads|no-full-packets|stores|sm)$'
flags=$(grep -o '^X([a-z_.]*, [A-Z0-9]*, [a-z_.]*, "--[a-z-]*"' "$SRC/src/options/options.def" | grep -o '"--[a-z-]*"' | tr -d '"')
[ "$(echo "$flags" | wc -l)" -ge 20 ] || fail "too few flags read from options.def: $flags"
for flag in $flags; do
  expect 0 "$TILEC" run --help && contains "$WORK/out" "$flag"
  if [[ $flag =~ $native_only ]]; then
    expect 2 "$TILEC" lower "$K" "$flag" x && contains "$WORK/err" "unknown option '$flag'"
  else
    expect 0 "$TILEC" lower --help && contains "$WORK/out" "$flag"
    expect 0 "$TILEC" plan --help && contains "$WORK/out" "$flag"
  fi
done

# Each kind of value, accepted (planned or run) and refused in its words.
expect 0 "$TILEC" plan "$K" --kernel cli_copy --order 0 --tiles 1 --grain 1 --max-candidates 9 --fuse off --pack off --split off \
  --search-tiles --search-grain --local-lanes 1 --partitions 2 --max-unrolled 0 --check-bounds --separate-mma \
  --cost l2_line=1 && contains "$WORK/out" "order \[0\]"
expect 0 "$TILEC" run "$K" --kernel cli_copy --threads 1 --no-full-packets --stores cached --order 0 --check
expect 2 "$TILEC" plan "$K" --grain x && contains "$WORK/err" "option value 'x' is not a non-negative integer in range"
expect 2 "$TILEC" plan "$K" --block 1x && contains "$WORK/err" "option value '1x' is not a non-negative 32-bit integer"
expect 2 "$TILEC" plan "$K" --order 1, && contains "$WORK/err" "--order needs comma-separated axis numbers, not '1,'"
expect 2 "$TILEC" plan "$K" --tiles '' && contains "$WORK/err" "--tiles needs comma-separated factors"
expect 2 "$TILEC" plan "$K" --fuse '' && contains "$WORK/err" "--fuse: '' is not auto, on or off"
expect 2 "$TILEC" run "$K" --threads 0 && contains "$WORK/err" "--threads needs a worker count 1..1024, not '0'"
expect 2 "$TILEC" run "$K" --stores on && contains "$WORK/err" "--stores: 'on' is not auto, cached or streaming"
expect 2 "$TILEC" plan "$K" --cost speed=1 && contains "$WORK/err" "--cost: unknown coefficient 'speed'"
expect 2 "$TILEC" plan "$K" --cost l2_line=fast && contains "$WORK/err" "--cost l2_line: 'fast' is not a number"
expect 2 "$TILEC" plan "$K" --check-bounds=1 && contains "$WORK/err" "option '--check-bounds' takes no value"
finish
