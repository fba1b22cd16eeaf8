# Chosen parameters from the command line (docs/tir.md "Chosen
# parameters", docs/cli.md "-D"): `tilec run` and `tilec bench` measure a
# kernel's `B in {…}` once (stderr: "chose B=… (measured)"), record it in
# the disk cache's directory and reuse it ("measured on this host before");
# a -D pins it (nothing chosen); TILEC_CHOOSE=first takes the first value;
# the result is checked against the reference whatever was chosen; a list
# naming a value twice is TIR-P28.
source "$(dirname "$0")/common.bash" "$@"

cp "$SRC/tests/kernels/chosen.tir" "$WORK/blocked.tir"
mkdir -m 700 "$WORK/cache"
measure() { env -u TILEC_CHOOSE TILEC_CACHE=1 TILEC_CACHE_DIR="$WORK/cache" "$@"; }
expect 0 measure "$TILEC" run "$WORK/blocked.tir" --kernel blocked -D U=1 --check --threads 1 &&
  contains "$WORK/err" '^tilec run: chose B=(16|64|1024) \(measured\)$' && contains "$WORK/out" 'ok'
chosen=$(sed -n 's/^tilec run: chose \(B=[0-9]*\) .*/\1/p' "$WORK/err")
expect 0 measure "$TILEC" run "$WORK/blocked.tir" --kernel blocked -D U=1 --check --threads 1 &&
  contains "$WORK/err" "^tilec run: chose $chosen \\(measured on this host before\\)$"
[ -s "$WORK/cache/choices.tsv" ] || fail "no record of the choice in the cache directory"
expect 0 measure "$TILEC" run "$WORK/blocked.tir" --kernel blocked -D U=1 -D B=64 --check && lacks "$WORK/err" 'chose'
expect 0 env TILEC_CHOOSE=first "$TILEC" bench "$WORK/blocked.tir" --kernel blocked -D U=1 &&
  contains "$WORK/err" '^tilec bench: chose B=16 \(first listed: policy first\)$'
sed 's/B in {16, 64, 1024}/B in {16, 64, 16}/' "$WORK/blocked.tir" >"$WORK/twice.tir"
expect 1 "$TILEC" run "$WORK/twice.tir" --kernel blocked && contains "$WORK/err" "error\[TIR-P28\]: 'B' lists the choice 16 twice"
finish
