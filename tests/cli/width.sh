# --width: one rule for every subcommand that takes it (cli_parse_width): 1, 2,
# 4, 8 or 16; anything else — 0 (which native execution once took as "the
# host's"), 3, 32 (a width only the planner models), junk — is a usage error
# (exit 2) with the same message, before any file is read.
source "$(dirname "$0")/common.bash" "$@"
K="$SRC/tests/kernels/cli_copy.tir"
commands=(plan lower "run" "run --native" "run --xir" bench emit-llvm emit-asm)

for cmd in "${commands[@]}"; do
  for bad in 0 3 17 32 1024 -4 x 4x '' 99999999999999999999; do
    expect 2 "$TILEC" $cmd "$K" --kernel cli_copy --width "$bad" &&
      contains "$WORK/err" "^tilec ${cmd%% *}: error: --width needs a packet width 1, 2, 4, 8 or 16, not '$bad'"
  done
  # The value is checked with the command line, before the file is opened.
  expect 2 "$TILEC" $cmd "$WORK/missing.tir" --width=0 && contains "$WORK/err" '--width needs'
done

# Every accepted width is taken by every subcommand (the native ones compile
# a small kernel: W=1 and W=16 are the ends of the range).
for w in 1 2 4 8 16; do
  expect 0 "$TILEC" plan "$K" --kernel cli_copy --width "$w" && contains "$WORK/out" "\(W=$w, "
  expect 0 "$TILEC" lower "$K" --kernel cli_copy --width "$w" && contains "$WORK/out" "packet_width=$w "
  expect 0 "$TILEC" run "$K" --kernel cli_copy --xir --width "$w" && contains "$WORK/out" "\(W=$w, "
done
for w in 1 16; do
  expect 0 "$TILEC" run "$K" --kernel cli_copy --check --width "$w" --threads 1 && contains "$WORK/out" "\(W=$w, "
  expect 0 "$TILEC" bench "$K" --kernel cli_copy --width "$w" --threads 1 && contains "$WORK/out" "W=$w,"
  expect 0 "$TILEC" emit-llvm "$K" --kernel cli_copy --width "$w" && contains "$WORK/out" "W=$w;"
  expect 0 "$TILEC" emit-asm "$K" --kernel cli_copy --width "$w" && contains "$WORK/out" "W=$w;"
done
finish
