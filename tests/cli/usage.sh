# Usage errors exit 2 with a message on stderr; help requests exit 0 on stdout.
source "$(dirname "$0")/common.bash" "$@"
K="$SRC/tests/kernels/cli_copy.tir"

expect 2 "$TILEC" && contains "$WORK/err" '^usage: tilec COMMAND'
expect 2 "$TILEC" frobnicate && contains "$WORK/err" "unknown command 'frobnicate'"
expect 2 "$TILEC" --frobnicate
expect 2 "$TILEC" check && contains "$WORK/err" 'missing FILE.tir'
expect 2 "$TILEC" check "$K" "$K" && contains "$WORK/err" 'unexpected argument'
expect 2 "$TILEC" check --bogus "$K" && contains "$WORK/err" "unknown option '--bogus'"
expect 2 "$TILEC" print --kernel=x "$K"
expect 2 "$TILEC" run "$K" --seed && contains "$WORK/err" "'--seed' needs a value"
expect 2 "$TILEC" run "$K" --seed=abc
expect 2 "$TILEC" run "$K" --seed -3
expect 2 "$TILEC" run "$K" --kernel
expect 2 "$TILEC" run "$K" --reference=yes && contains "$WORK/err" 'takes no value'
expect 2 "$TILEC" run "$K" --in X && contains "$WORK/err" 'expected NAME=FILE.npy'
expect 2 "$TILEC" run "$K" --out =y.npy
expect 2 "$TILEC" run "$K" --in X=a.npy --in %X=b.npy && contains "$WORK/err" 'given twice'
expect 2 "$TILEC" run && contains "$WORK/err" 'missing FILE.tir'
expect 2 "$TILEC" demo --bogus
for bad in X X= =3 1X=3 N=abc N=4x N=99999999999999999999 'N N=3'; do
  expect 2 "$TILEC" check -D "$bad" "$K" && contains "$WORK/err" "malformed -D"
done
expect 2 "$TILEC" check "-D" && contains "$WORK/err" "'-D' needs a value"
expect 2 "$TILEC" help frobnicate
expect 2 "$TILEC" help run extra

# Help: the program and every subcommand, both spellings.
for h in --help -h help "help help"; do
  expect 0 "$TILEC" $h && contains "$WORK/out" '^usage: tilec COMMAND'
done
for cmd in check print run bench emit-llvm emit-asm demo; do
  expect 0 "$TILEC" help $cmd && contains "$WORK/out" "^usage: tilec $cmd"
  expect 0 "$TILEC" $cmd --help && contains "$WORK/out" "^usage: tilec $cmd"
  expect 0 "$TILEC" $cmd -h && contains "$WORK/out" "^usage: tilec $cmd"
done
contains "$WORK/out" 'examples-dir'
expect 0 "$TILEC" help run && contains "$WORK/out" '--xir +lower to XIR' && contains "$WORK/out" '--check +with --native'
expect 0 "$TILEC" --help && contains "$WORK/out" '^  bench +time' && contains "$WORK/out" '^  emit-asm +print'
# After "--" everything is a file name.
expect 1 "$TILEC" check -- --help && contains "$WORK/err" 'cannot open'
finish
